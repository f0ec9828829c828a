package git

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// BaseBranch is the name of the base branch Base resolves, without its
// commit. A Repo that Find opened from its files reads it from them (HEAD,
// loose refs, packed-refs) when they answer plainly; anything else, and
// every error, is Base's, so the name and the message are git's.
func (r *Repo) BaseBranch(ctx context.Context, want string) (string, error) {
	if branch, ok := r.baseFromFiles(want); ok {
		return branch, nil
	}
	branch, _, err := r.Base(ctx, want)
	return branch, err
}

// baseFromFiles is Base's choice of branch made from the files; ok is false
// when git must be asked (and whenever Base would fail), as for a Repo that
// Find did not read from its files.
func (r *Repo) baseFromFiles(want string) (string, bool) {
	if r.gitDir == "" {
		return "", false
	}
	s := &refStore{commonDir: r.CommonDir}
	if want != "" {
		// for-each-ref refs/heads/WANT refs/remotes/origin/WANT: a
		// pattern, so nothing a glob or a bad name could widen.
		if !validRefName("refs/heads/"+want) || want == "HEAD" {
			return "", false
		}
		for _, ref := range []string{"refs/heads/" + want, "refs/remotes/origin/" + want} {
			_, sha, _, st := s.resolve(ref)
			switch {
			case st == refUnsure:
				return "", false
			case st == refFound:
				// for-each-ref may pass over a ref whose object is
				// missing; one that is there it lists.
				return want, hasObject(r.CommonDir, sha)
			}
		}
		return "", false
	}
	// origin's default branch: for-each-ref lists refs/remotes/origin/HEAD
	// with %(symref), the ref it resolves to in the end; one that does
	// not resolve it passes over, as it does a plain one here.
	final, sha, symbolic, st := s.resolve("refs/remotes/origin/HEAD")
	if st == refUnsure {
		return "", false
	}
	if st == refFound && symbolic {
		if branch, ok := strings.CutPrefix(final, "refs/remotes/origin/"); ok {
			return branch, hasObject(r.CommonDir, sha)
		}
	}
	// HEAD's branch: rev-parse HEAD --symbolic-full-name HEAD, which a
	// ref named like HEAD elsewhere would make ambiguous.
	for _, ref := range []string{"refs/HEAD", "refs/tags/HEAD", "refs/heads/HEAD", "refs/remotes/HEAD", "refs/remotes/HEAD/HEAD"} {
		if _, _, st := s.lookup(ref); st != refAbsent {
			return "", false
		}
	}
	target, sha, ok := readHead(r.gitDir)
	if !ok {
		return "", false
	}
	if target == "" {
		return "HEAD", hasObject(r.CommonDir, sha)
	}
	branch, ok := strings.CutPrefix(target, "refs/heads/")
	if !ok {
		return "", false
	}
	// An unborn branch fails rev-parse: git words that.
	final, sha, _, st = s.resolve(target)
	if st != refFound || final != target {
		return "", false
	}
	return branch, hasObject(r.CommonDir, sha)
}

// refState is what reading a ref found.
type refState int

const (
	// refUnsure is a ref the files do not plainly answer for.
	refUnsure refState = iota
	// refAbsent is a ref that is neither loose nor packed.
	refAbsent
	// refFound is a ref that is there.
	refFound
)

// refStore reads the refs of a repository in git's files format, loose in
// the common dir, else in its packed-refs; HEAD, in the worktree's git
// dir, readHead reads.
type refStore struct {
	commonDir  string
	packed     map[string]string
	packedRead bool
	packedOK   bool
}

// maxSymrefDepth is git's limit on a chain of symbolic refs.
const maxSymrefDepth = 5

// resolve follows name through symbolic refs to the ref that holds an
// object name: final is that ref, sha the object, symbolic whether name
// was symbolic. A symbolic ref whose target is absent is absent.
func (s *refStore) resolve(name string) (final, sha string, symbolic bool, st refState) {
	for depth := range maxSymrefDepth {
		target, sha, st := s.lookup(name)
		if st != refFound {
			return "", "", depth > 0, st
		}
		if target == "" {
			return name, sha, depth > 0, refFound
		}
		name = target
	}
	return "", "", true, refUnsure
}

// lookup reads ref name without following it: its target when symbolic,
// else its object name.
func (s *refStore) lookup(name string) (target, sha string, st refState) {
	if !validRefName(name) {
		return "", "", refUnsure
	}
	path := filepath.Join(s.commonDir, filepath.FromSlash(name))
	fi, err := os.Lstat(path)
	switch {
	case err == nil && fi.Mode().IsRegular():
		b, err := os.ReadFile(path)
		if err != nil {
			return "", "", refUnsure
		}
		target, sha, ok := parseRef(b)
		if !ok {
			return "", "", refUnsure
		}
		return target, sha, refFound
	case err == nil && fi.IsDir(), errors.Is(err, fs.ErrNotExist):
		// A directory where the ref would be holds refs below it; the
		// ref itself may still be packed.
	default:
		return "", "", refUnsure
	}
	if !s.packedRead {
		s.packedRead = true
		s.packed, s.packedOK = readPackedRefs(filepath.Join(s.commonDir, "packed-refs"))
	}
	if !s.packedOK {
		return "", "", refUnsure
	}
	if sha, ok := s.packed[name]; ok {
		return "", sha, refFound
	}
	return "", "", refAbsent
}

// readHead reads gitDir's HEAD: the ref it names, else the commit it holds
// detached. ok is false for a HEAD that is not plainly either.
func readHead(gitDir string) (target, sha string, ok bool) {
	path := filepath.Join(gitDir, "HEAD")
	fi, err := os.Lstat(path)
	if err != nil || !fi.Mode().IsRegular() {
		return "", "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", "", false
	}
	return parseRef(b)
}

// parseRef reads a loose ref: "ref: TARGET" or an object name, each on one
// line. It is stricter than git, which also takes spaces and trailing text.
func parseRef(b []byte) (target, sha string, ok bool) {
	s := strings.TrimSuffix(string(b), "\n")
	if t, sym := strings.CutPrefix(s, "ref: "); sym {
		return t, "", validRefName(t)
	}
	return "", s, isObjectName(s)
}

// isObjectName reports whether s is a full SHA-1 object name in lowercase
// hex, as git writes one.
func isObjectName(s string) bool {
	if len(s) != 40 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// validRefName reports whether name is a ref name under refs/ that git
// takes as it is: components of plain characters, none starting with a dot
// or ending in ".lock", no "..", no "@{", nothing a pattern or a revision
// would read as syntax. It refuses more than git's check_refname_format.
func validRefName(name string) bool {
	if !strings.HasPrefix(name, "refs/") || strings.Contains(name, "..") || strings.Contains(name, "@{") {
		return false
	}
	for _, c := range []byte(name) {
		if c <= ' ' || c == 0x7f || strings.IndexByte("~^:?*[\\", c) >= 0 {
			return false
		}
	}
	for _, comp := range strings.Split(name, "/") {
		if comp == "" || comp[0] == '.' || strings.HasSuffix(comp, ".lock") || strings.HasSuffix(comp, ".") {
			return false
		}
	}
	return true
}

// readPackedRefs reads a packed-refs file into ref name → object name; no
// file is no refs. ok is false for a line it does not understand.
func readPackedRefs(path string) (map[string]string, bool) {
	refs := map[string]string{}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return refs, true
	}
	if err != nil || len(b) > 0 && b[len(b)-1] != '\n' {
		return nil, false
	}
	lines := strings.Split(string(b[:max(len(b)-1, 0)]), "\n")
	if len(b) == 0 {
		lines = nil
	}
	peelable := false
	for i, line := range lines {
		switch {
		case i == 0 && strings.HasPrefix(line, "# pack-refs with:"):
			continue
		case strings.HasPrefix(line, "^"):
			// The peeled object of the annotated tag above.
			if !peelable || !isObjectName(line[1:]) {
				return nil, false
			}
			peelable = false
			continue
		}
		sha, name, ok := strings.Cut(line, " ")
		if !ok || !isObjectName(sha) || !validRefName(name) {
			return nil, false
		}
		if _, dup := refs[name]; dup {
			return nil, false
		}
		refs[name] = sha
		peelable = true
	}
	return refs, true
}

// hasObject reports whether the object sha is in the repository at
// commonDir, loose or in a pack with its index; false also when that cannot
// be told (an alternate holds it, an index of another version).
func hasObject(commonDir, sha string) bool {
	objects := filepath.Join(commonDir, "objects")
	if fi, err := os.Stat(filepath.Join(objects, sha[:2], sha[2:])); err == nil && fi.Mode().IsRegular() {
		return true
	}
	raw, err := hex.DecodeString(sha)
	if err != nil {
		return false
	}
	packs := filepath.Join(objects, "pack")
	entries, err := os.ReadDir(packs)
	if err != nil {
		return false
	}
	for _, e := range entries {
		idx, ok := strings.CutSuffix(e.Name(), ".idx")
		if !ok {
			continue
		}
		// git uses an index only beside its pack.
		if _, err := os.Stat(filepath.Join(packs, idx+".pack")); err != nil {
			continue
		}
		if indexHas(filepath.Join(packs, e.Name()), raw) {
			return true
		}
	}
	return false
}

// indexHas reports whether the version 2 pack index at path lists the
// SHA-1 object raw: its fan-out table bounds a binary search of the sorted
// names.
func indexHas(path string, raw []byte) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	const header, fanout, hashLen = 8, 256 * 4, 20
	head := make([]byte, header+fanout)
	if _, err := f.ReadAt(head, 0); err != nil {
		return false
	}
	if !bytes.Equal(head[:header], []byte{0xff, 't', 'O', 'c', 0, 0, 0, 2}) {
		return false
	}
	count := func(b int) int { return int(binary.BigEndian.Uint32(head[header+4*b:])) }
	lo, hi := 0, count(int(raw[0]))
	if raw[0] > 0 {
		lo = count(int(raw[0]) - 1)
	}
	if lo > hi {
		return false
	}
	name := make([]byte, hashLen)
	var readErr error
	i := lo + sort.Search(hi-lo, func(i int) bool {
		if _, err := f.ReadAt(name, int64(header+fanout+(lo+i)*hashLen)); err != nil {
			readErr = err
			return true
		}
		return bytes.Compare(name, raw) >= 0
	})
	if readErr != nil || i >= hi {
		return false
	}
	if _, err := f.ReadAt(name, int64(header+fanout+i*hashLen)); err != nil {
		return false
	}
	return bytes.Equal(name, raw)
}
