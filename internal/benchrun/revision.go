package benchrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// Toplevel returns the root of the git work tree holding dir.
func Toplevel(ctx context.Context, dir string) (string, error) {
	return git(ctx, dir, "rev-parse", "--show-toplevel")
}

// CacheDir returns netbench's cache directory: $NETBENCH_CACHE when set,
// otherwise netbench under the user cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("NETBENCH_CACHE"); d != "" {
		return d, nil
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "netbench"), nil
}

// AddWorktree checks commit out, detached, into dest with git worktree, and
// returns a function that removes the worktree again so that `git worktree
// list` in the user's repository is as it was.
func AddWorktree(ctx context.Context, repo, commit, dest string) (remove func(), err error) {
	_, _ = git(ctx, repo, "worktree", "remove", "--force", dest) // a leftover of an interrupted run
	_ = os.RemoveAll(dest)
	_, _ = git(ctx, repo, "worktree", "prune")
	if _, err := git(ctx, repo, "worktree", "add", "--detach", "--force", dest, commit); err != nil {
		return nil, err
	}
	return func() {
		_, _ = git(context.Background(), repo, "worktree", "remove", "--force", dest)
		_ = os.RemoveAll(dest)
		_, _ = git(context.Background(), repo, "worktree", "prune")
	}, nil
}

// BuildKey names a cache entry of test binaries: the commit, the go
// version and the build-relevant options.
func BuildKey(commit, goVersion string, parts ...string) string {
	h := sha256.Sum256([]byte(strings.Join(append([]string{commit, goVersion}, parts...), "\x00")))
	return commit + "-" + hex.EncodeToString(h[:8])
}

// manifest records the packages a cached build found benchmarks in.
const manifest = "packages.json"

// LoadBuild returns the packages of a cached build in binDir, with their
// source directories re-rooted at srcRoot, or ok == false.
func LoadBuild(binDir, srcRoot string) (pkgs []Package, ok bool) {
	b, err := os.ReadFile(filepath.Join(binDir, manifest))
	if err != nil || json.Unmarshal(b, &pkgs) != nil {
		return nil, false
	}
	for i := range pkgs {
		pkgs[i].Dir = filepath.Join(srcRoot, pkgs[i].Dir)
		pkgs[i].Binary = filepath.Join(binDir, pkgs[i].Binary)
		if _, err := os.Stat(pkgs[i].Binary); err != nil {
			return nil, false
		}
	}
	return pkgs, true
}

// SaveBuild writes the manifest of a build in binDir, storing source
// directories relative to srcRoot.
func SaveBuild(binDir, srcRoot string, pkgs []Package) error {
	rel := make([]Package, len(pkgs))
	for i, p := range pkgs {
		d, err := filepath.Rel(srcRoot, p.Dir)
		if err != nil {
			return err
		}
		p.Dir, p.Binary = d, filepath.Base(p.Binary)
		rel[i] = p
	}
	b, err := json.MarshalIndent(rel, "", "\t")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(binDir, manifest), b, 0o644)
}
