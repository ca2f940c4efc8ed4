package benchrun

import (
	"context"
	"errors"
	"strings"
)

// ErrNotGitRepo is returned when the directory is not inside a git work
// tree.
var ErrNotGitRepo = errors.New("benchrun: not inside a git repository (netbench records the commit it measures)")

// ErrNoCommits is returned when the repository has no commit yet.
var ErrNoCommits = errors.New("benchrun: repository has no commits (netbench records the commit it measures; commit first)")

// git runs git in dir and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	out, stderr, err := command(ctx, dir, "git", args...)
	if err != nil {
		if strings.Contains(stderr, "not a git repository") {
			return "", ErrNotGitRepo
		}
		return "", err
	}
	return strings.TrimSpace(string(out)), nil
}

// Commit resolves a revision (SHA, tag, HEAD~1 …) to its full commit hash.
// In a repository without commits it returns ErrNoCommits.
func Commit(ctx context.Context, dir, rev string) (string, error) {
	c, err := git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
	if err != nil && !errors.Is(err, ErrNotGitRepo) {
		if some, lerr := git(ctx, dir, "rev-list", "--max-count=1", "--all"); lerr == nil && some == "" {
			return "", ErrNoCommits
		}
	}
	return c, err
}
