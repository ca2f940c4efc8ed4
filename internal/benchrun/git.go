package benchrun

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
)

// ErrNotGitRepo is returned when the directory is not inside a git work
// tree.
var ErrNotGitRepo = errors.New("benchrun: not inside a git repository (netbench records the commit it measures)")

// git runs git in dir and returns its trimmed standard output.
func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		msg := stderr.String()
		if strings.Contains(msg, "not a git repository") {
			return "", ErrNotGitRepo
		}
		return "", fmt.Errorf("git %s: %w\n%s", strings.Join(args, " "), err, msg)
	}
	return strings.TrimSpace(string(out)), nil
}

// Commit resolves a revision (SHA, tag, HEAD~1 …) to its full commit hash.
func Commit(ctx context.Context, dir, rev string) (string, error) {
	return git(ctx, dir, "rev-parse", "--verify", "--quiet", rev+"^{commit}")
}
