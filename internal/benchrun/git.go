package benchrun

import (
	"context"
	"errors"
	"strings"
)

// ErrNotGitRepo is returned when the directory is not inside a git work
// tree.
var ErrNotGitRepo = errors.New("benchrun: not inside a git repository (netbench records the commit it measures)")

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
func Commit(ctx context.Context, dir, rev string) (string, error) {
	return git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
}
