package git

import (
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
// repository extension, a mount point crossed, a file it cannot read, a
// config file git would not parse) goes to Discover, so the answer is
// git's. A config that parses but gives a key a value git refuses when it
// reads that key (core.filemode = maybe) is not looked into: Find answers,
// and the git commands a run starts later fail on it. A Repo found this
// way also answers BaseBranch from its files.
func Find(ctx context.Context, g *Git, dir string) (*Repo, error) {
	if repo, err, ok := findFiles(g, dir); ok {
		return repo, err
	}
	return Discover(ctx, g, dir)
}

// notInside is Discover's error for a directory outside any repository.
func notInside(dir string) error {
	return fmt.Errorf("%s is not inside a git repository; run cairn in one, or give -C DIR", dir)
}

// findFiles is Find's reading of the files; ok is false when git must be
// asked instead.
func findFiles(g *Git, dir string) (repo *Repo, err error, ok bool) {
	env := g.env
	if !plainEnv(env) || !configFilesParse(env) {
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
			repo, ok := openDotGit(d, dotgit, fi, g)
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
// trusts it. Others (identity, transport, pager, trace, and the paths of
// the global and system config, which Find reads as git does) change none
// of that.
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
func openDotGit(d, dotgit string, fi fs.FileInfo, g *Git) (*Repo, bool) {
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
	home, _ := lookupEnv(g.env, "HOME")
	cfg, ok := readRepoConfig(filepath.Join(commonDir, "config"), home)
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
	repo := &Repo{Root: d, CommonDir: commonDir, Git: g, gitDir: gitDir}
	if cfg.ignoreCase {
		repo.gitDir = "" // BaseBranch asks git, which names refs exactly
	}
	return repo, true
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
	// ignoreCase is core.ignorecase, which git sets on a disk that does
	// not tell refs/heads/Main from refs/heads/main: a ref file found
	// there may not be the ref asked for.
	ignoreCase bool
}

// readRepoConfig reads the repository's config file at path for
// core.bare, core.worktree, core.repositoryformatversion and extensions, as
// git reads them to open the repository (from that file alone), and checks
// that it and every file it includes parse; home expands "~/" in an
// include. ok is false when git would refuse a file, or a format version
// or extension is not plain.
func readRepoConfig(path, home string) (repoConfig, bool) {
	var cfg repoConfig
	if _, err := os.Stat(path); err != nil {
		return cfg, false
	}
	entries, ok := readConfigFile(path, home, 0)
	if !ok {
		return cfg, false
	}
	version, v1Only := "", false
	for _, e := range entries {
		section, key, _ := strings.Cut(e.name, ".")
		switch {
		case section == "extensions":
			// Those that change nothing about where the repository is or
			// how its refs are stored, with values git accepts.
			switch key {
			case "noop":
			case "preciousobjects":
				if _, ok := configBool(e.value, e.hasValue); !ok {
					return cfg, false
				}
			case "partialclone":
				if !e.hasValue {
					return cfg, false
				}
			case "objectformat":
				if e.value != "sha1" {
					return cfg, false
				}
				v1Only = true
			default:
				return cfg, false
			}
		case section != "core":
		case key == "repositoryformatversion":
			if e.value != "0" && e.value != "1" {
				return cfg, false
			}
			version = e.value
		case key == "ignorecase":
			ignoreCase, ok := configBool(e.value, e.hasValue)
			if !ok {
				return cfg, false
			}
			cfg.ignoreCase = ignoreCase
		case key == "bare":
			bare, ok := configBool(e.value, e.hasValue)
			if !ok {
				return cfg, false
			}
			cfg.bare = bare
		case key == "worktree":
			if !e.hasValue || e.value == "" {
				return cfg, false
			}
			cfg.worktree = &e.value
		}
	}
	// git refuses a format 0 repository that names an extension of
	// format 1.
	if v1Only && version != "1" {
		return cfg, false
	}
	return cfg, true
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
