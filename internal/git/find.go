package git

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// Find is Discover without a git process where the repository's own files
// answer exactly as git would: a .git directory or a .git file (a linked
// worktree, a submodule) found walking up from dir, in a repository the
// current user owns, with an environment and a config that change nothing
// about where git looks. Anything else (a GIT_* variable that steers
// discovery, a bare repository, another user's, core.worktree elsewhere, a
// repository extension, a file it cannot read or parse) goes to Discover, so
// the answer is always git's. A Repo found this way also answers BaseBranch
// from its files.
func Find(ctx context.Context, dir string, env []string) (*Repo, error) {
	if repo, err, ok := findFiles(dir, env); ok {
		return repo, err
	}
	return Discover(ctx, dir, env)
}

// notInside is Discover's error for a directory outside any repository.
func notInside(dir string) error {
	return fmt.Errorf("%s is not inside a git repository; run cairn in one, or give -C DIR", dir)
}

// findFiles is Find's reading of the files; ok is false when git must be
// asked instead.
func findFiles(dir string, env []string) (repo *Repo, err error, ok bool) {
	if !plainEnv(env) {
		return nil, nil, false
	}
	path := dir
	if !filepath.IsAbs(path) {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, false
		}
		path = resolveFrom(wd, dir)
	}
	// git -C chdirs and walks up from getcwd: the physical path.
	d, err := filepath.EvalSymlinks(path)
	if err != nil {
		return nil, nil, false
	}
	fi, err := os.Stat(d)
	if err != nil || !fi.IsDir() {
		return nil, nil, false
	}
	dev, ok := device(fi)
	if !ok {
		return nil, nil, false
	}
	for {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err == nil && fi.IsDir() && missing(filepath.Join(dotgit, "HEAD")):
			// A .git directory without a HEAD is no git directory to
			// git, which looks further up.
		case err == nil:
			repo, ok := openDotGit(d, dotgit, fi, env)
			return repo, nil, ok
		case !errors.Is(err, fs.ErrNotExist):
			return nil, nil, false
		}
		// A directory holding HEAD may be a git directory itself (a bare
		// repository, or inside a .git): git's call.
		if !missing(filepath.Join(d, "HEAD")) {
			return nil, nil, false
		}
		parent := filepath.Dir(d)
		if parent == d {
			return nil, notInside(dir), true
		}
		pfi, err := os.Stat(parent)
		if err != nil {
			return nil, nil, false
		}
		// git stops at a mount point unless told otherwise, and words
		// that itself.
		if pdev, ok := device(pfi); !ok || pdev != dev {
			return nil, nil, false
		}
		d = parent
	}
}

// missing reports whether nothing is at path, not even a dangling symlink.
func missing(path string) bool {
	_, err := os.Lstat(path)
	return errors.Is(err, fs.ErrNotExist)
}

// steeringEnv are the GIT_* variables that change where git finds a
// repository, how it reads the repository's config and refs, or whether it
// trusts it. Others (identity, transport, pager, trace, global and system
// config, which git reads only to trust a repository another user owns)
// change none of that.
var steeringEnv = map[string]bool{
	"GIT_DIR": true, "GIT_WORK_TREE": true, "GIT_COMMON_DIR": true, "GIT_IMPLICIT_WORK_TREE": true,
	"GIT_CEILING_DIRECTORIES": true, "GIT_DISCOVERY_ACROSS_FILESYSTEM": true,
	"GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true,
	"GIT_NAMESPACE": true, "GIT_REF_PARANOIA": true, "GIT_REPLACE_REF_BASE": true,
	"GIT_CONFIG": true, "GIT_CONFIG_PARAMETERS": true, "GIT_CONFIG_COUNT": true,
	"GIT_INTERNAL_SUPER_PREFIX": true,
}

// plainEnv reports whether env sets none of the steering variables, nor a
// config entry (GIT_CONFIG_KEY_n) or a test knob (GIT_TEST_*, which can
// make git distrust a repository's owner).
func plainEnv(env []string) bool {
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if steeringEnv[name] || strings.HasPrefix(name, "GIT_CONFIG_KEY_") ||
			strings.HasPrefix(name, "GIT_CONFIG_VALUE_") || strings.HasPrefix(name, "GIT_TEST_") {
			return false
		}
	}
	return true
}

// openDotGit opens the repository whose .git, at dotgit in the working tree
// d, is described by fi; ok is false when git must be asked.
func openDotGit(d, dotgit string, fi fs.FileInfo, env []string) (*Repo, bool) {
	gitDir := dotgit
	switch {
	case fi.IsDir():
	case fi.Mode().IsRegular():
		target, ok := readGitFile(dotgit, fi)
		if !ok {
			return nil, false
		}
		if !filepath.IsAbs(target) {
			target = d + "/" + target
		}
		real, err := filepath.EvalSymlinks(target)
		if err != nil {
			return nil, false
		}
		gitDir = real
	default:
		return nil, false
	}
	commonDir, linked, ok := readCommonDir(gitDir)
	if !ok || !isGitDir(gitDir, commonDir) {
		return nil, false
	}
	cfg, ok := readRepoConfig(filepath.Join(commonDir, "config"))
	if !ok || cfg.bare {
		return nil, false
	}
	if cfg.worktree != nil {
		// A submodule's config names its working tree; git then takes
		// that, which is d only when it resolves there.
		if linked || !sameDir(resolveFrom(gitDir, *cfg.worktree), d) {
			return nil, false
		}
	}
	for _, p := range []string{d, dotgit, gitDir, commonDir} {
		if !ownedByMe(p) {
			return nil, false
		}
	}
	return &Repo{Root: d, CommonDir: commonDir, Env: env, gitDir: gitDir}, true
}

// readGitFile reads the path a .git file names, as git's read_gitfile does:
// "gitdir: PATH", trailing line ends dropped.
func readGitFile(path string, fi fs.FileInfo) (string, bool) {
	if fi.Size() > 1<<20 {
		return "", false
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return "", false
	}
	s, ok := strings.CutPrefix(string(b), "gitdir: ")
	if !ok {
		return "", false
	}
	s = strings.TrimRight(s, "\r\n")
	if s == "" || strings.ContainsAny(s, "\x00\r\n") {
		return "", false
	}
	return s, true
}

// readCommonDir is the git common dir of gitDir, its real path: the one
// gitDir's commondir file names (a linked worktree's), else gitDir.
func readCommonDir(gitDir string) (dir string, linked, ok bool) {
	b, err := os.ReadFile(filepath.Join(gitDir, "commondir"))
	if errors.Is(err, fs.ErrNotExist) {
		return gitDir, false, true
	}
	if err != nil {
		return "", false, false
	}
	s := strings.TrimRight(string(b), "\r\n")
	if s == "" || strings.ContainsAny(s, "\x00\r\n") {
		return "", false, false
	}
	real, err := filepath.EvalSymlinks(resolveFrom(gitDir, s))
	if err != nil {
		return "", false, false
	}
	return real, true, true
}

// resolveFrom is path taken relative to base unless absolute, left for
// EvalSymlinks to resolve component by component, as chdir does: joining
// would drop a "dir/.." lexically where the kernel follows dir first.
func resolveFrom(base, path string) string {
	if filepath.IsAbs(path) {
		return path
	}
	return base + "/" + path
}

// sameDir reports whether path resolves to the real directory dir.
func sameDir(path, dir string) bool {
	real, err := filepath.EvalSymlinks(path)
	return err == nil && real == dir
}

// isGitDir reports whether gitDir is a git directory as git tells one:
// a HEAD it can read, objects and refs in its common dir. It is stricter
// than git: a HEAD that is a symlink, or anything odd, is not one here.
func isGitDir(gitDir, commonDir string) bool {
	if _, _, ok := readHead(gitDir); !ok {
		return false
	}
	for _, sub := range []string{"objects", "refs"} {
		fi, err := os.Stat(filepath.Join(commonDir, sub))
		if err != nil || !fi.IsDir() {
			return false
		}
	}
	return true
}

// repoConfig is what of a repository's config decides how git opens it.
type repoConfig struct {
	bare bool
	// worktree is core.worktree, nil when unset.
	worktree *string
}

// safeExtensions are the repository extensions that change nothing about
// where the repository is or how its refs are stored.
var safeExtensions = map[string]bool{"partialclone": true, "preciousobjects": true, "noop": true}

// readRepoConfig reads the config file at path for core.bare,
// core.worktree, core.repositoryformatversion and extensions, parsing every
// line as git does; ok is false when it cannot be sure of them: a line git
// would refuse or it does not follow (a continued value, a key on a
// header's line), an include, a format version or extension that is not
// plain.
func readRepoConfig(path string) (repoConfig, bool) {
	var cfg repoConfig
	b, err := os.ReadFile(path)
	if err != nil || bytes.IndexByte(b, 0) >= 0 {
		return cfg, false
	}
	section := ""
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimLeft(strings.TrimSuffix(line, "\r"), " \t\v\f\r")
		if strings.HasSuffix(line, "\\") {
			return cfg, false
		}
		if line == "" || line[0] == '#' || line[0] == ';' {
			continue
		}
		if line[0] == '[' {
			name, ok := configSection(line)
			if !ok || name == "include" || strings.HasPrefix(name, "includeif.") {
				return cfg, false
			}
			section = name
			continue
		}
		key, value, hasValue, ok := configEntry(line)
		if !ok {
			return cfg, false
		}
		switch {
		case section == "extensions":
			if !safeExtensions[key] && !(key == "objectformat" && strings.EqualFold(value, "sha1")) {
				return cfg, false
			}
		case section != "core":
		case key == "repositoryformatversion":
			if value != "0" && value != "1" {
				return cfg, false
			}
		case key == "bare":
			bare, ok := configBool(value, hasValue)
			if !ok {
				return cfg, false
			}
			cfg.bare = bare
		case key == "worktree":
			if !hasValue || value == "" {
				return cfg, false
			}
			cfg.worktree = &value
		}
	}
	return cfg, true
}

// isConfigSpace is C's isspace, which git's config parser uses.
func isConfigSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r'
}

// isKeyChar is a character of a config key or section name.
func isKeyChar(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-'
}

// configSection is the section a header line opens, lowercased, with its
// subsection after a dot: `[core]` is "core", `[remote "o"]` "remote.o".
// As in git, a subsection is quoted after a space and closed by "]" at
// once.
func configSection(line string) (string, bool) {
	i := 1
	for i < len(line) && (isKeyChar(line[i]) || line[i] == '.') {
		i++
	}
	name := strings.ToLower(line[1:i])
	if name == "" || i == len(line) {
		return "", false
	}
	switch {
	case line[i] == ']':
		i++
	case isConfigSpace(line[i]):
		for i < len(line) && isConfigSpace(line[i]) {
			i++
		}
		if i == len(line) || line[i] != '"' {
			return "", false
		}
		var sub strings.Builder
		for i++; ; i++ {
			if i == len(line) {
				return "", false
			}
			c := line[i]
			if c == '"' {
				break
			}
			if c == '\\' {
				if i++; i == len(line) {
					return "", false
				}
				c = line[i]
			}
			sub.WriteByte(c)
		}
		if i++; i == len(line) || line[i] != ']' {
			return "", false
		}
		i++
		name += "." + sub.String()
	default:
		return "", false
	}
	// `[core] bare = true` is one line to git; Find does not follow it.
	if rest := strings.TrimLeft(line[i:], " \t\v\f\r"); rest != "" && rest[0] != '#' && rest[0] != ';' {
		return "", false
	}
	return name, true
}

// configEntry splits a `key = value` line as git does, the key lowercased
// and the value unquoted and unescaped; hasValue is false for a bare `key`.
func configEntry(line string) (key, value string, hasValue, ok bool) {
	if !(line[0] >= 'a' && line[0] <= 'z' || line[0] >= 'A' && line[0] <= 'Z') {
		return "", "", false, false
	}
	i := 0
	for i < len(line) && isKeyChar(line[i]) {
		i++
	}
	key = strings.ToLower(line[:i])
	for i < len(line) && (line[i] == ' ' || line[i] == '\t') {
		i++
	}
	if i == len(line) {
		return key, "", false, true
	}
	if line[i] != '=' {
		return "", "", false, false
	}
	value, ok = configValue(line[i+1:])
	return key, value, true, ok
}

// configValue is git's reading of a value: comments cut, outer spaces
// dropped, quotes removed, the escapes \\, \", \n, \t and \b read; any
// other escape or an open quote is an error.
func configValue(raw string) (string, bool) {
	var b strings.Builder
	quote := false
	space := 0
	for i := 0; i < len(raw); i++ {
		c := raw[i]
		if !quote && (c == ';' || c == '#') {
			break
		}
		if !quote && isConfigSpace(c) {
			if b.Len() > 0 {
				space++
			}
			continue
		}
		for ; space > 0; space-- {
			b.WriteByte(' ')
		}
		switch c {
		case '"':
			quote = !quote
			continue
		case '\\':
			if i++; i == len(raw) {
				return "", false
			}
			switch raw[i] {
			case '\\', '"':
				c = raw[i]
			case 'n':
				c = '\n'
			case 't':
				c = '\t'
			case 'b':
				c = '\b'
			default:
				return "", false
			}
		}
		b.WriteByte(c)
	}
	return b.String(), !quote
}

// configBool is git's reading of a boolean: a bare key is true.
func configBool(value string, hasValue bool) (bool, bool) {
	if !hasValue {
		return true, true
	}
	switch strings.ToLower(value) {
	case "true", "yes", "on":
		return true, true
	case "false", "no", "off", "":
		return false, true
	}
	if n, err := strconv.Atoi(value); err == nil {
		return n != 0, true
	}
	return false, false
}
