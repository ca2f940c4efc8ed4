package benchrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
)

// Toplevel returns the root of the git work tree holding dir.
func Toplevel(ctx context.Context, dir string) (string, error) {
	return git(ctx, dir, "rev-parse", "--show-toplevel")
}

// CacheDir returns netbench's cache directory, as an absolute path (git
// and go run in other directories): $NETBENCH_CACHE when set, otherwise
// netbench under the user cache directory.
func CacheDir() (string, error) {
	if d := os.Getenv("NETBENCH_CACHE"); d != "" {
		return filepath.Abs(d)
	}
	d, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(d, "netbench"), nil
}

// Prefix returns the path of dir inside its git work tree, slash-separated
// and without a trailing slash ("" at the top). Git computes it, so a dir
// reached through a symbolic link gives the same answer as its real path.
func Prefix(ctx context.Context, dir string) (string, error) {
	p, err := git(ctx, dir, "rev-parse", "--show-prefix")
	return strings.TrimSuffix(p, "/"), err
}

// AddWorktree checks commit out, detached, into a new directory under
// parent with git worktree, and returns the directory and a function that
// removes the worktree again, so that `git worktree list` in the user's
// repository is as it was. Each call gets a directory of its own: runs
// that check out the same commit at the same time do not share one.
//
// remove runs git without a context on purpose, so that it still works
// after ctx is cancelled (an interrupted run must clean up). If the checkout
// fails, what it left is removed before AddWorktree returns.
func AddWorktree(ctx context.Context, repo, commit, parent string) (dir string, remove func(), err error) {
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", nil, err
	}
	dir, err = os.MkdirTemp(parent, commit[:min(len(commit), 12)]+"-")
	if err != nil {
		return "", nil, err
	}
	remove = func() {
		if _, err := git(context.Background(), repo, "worktree", "remove", "--force", dir); err != nil {
			_ = os.RemoveAll(dir)
			_, _ = git(context.Background(), repo, "worktree", "prune")
		}
		_ = os.RemoveAll(dir)
	}
	if _, err := git(ctx, repo, "worktree", "add", "--detach", dir, commit); err != nil {
		remove()
		if ctx.Err() != nil {
			err = context.Cause(ctx)
		}
		return "", nil, err
	}
	return dir, remove, nil
}
