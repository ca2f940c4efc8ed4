package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
)

// ErrNotFound reports that no Chromium or Chrome binary could be found.
// Find wraps it when $NETKIT_CHROMIUM names a file that cannot be run.
var ErrNotFound = errors.New("browser: no Chromium or Chrome found")

// EnvPath is the environment variable that, when set, names the browser
// binary Find returns (a path, or a name looked up on $PATH).
const EnvPath = "NETKIT_CHROMIUM"

// candidates are the binary names Find looks up on $PATH, in order.
var candidates = []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "headless_shell"}

// Find returns the path of a Chromium or Chrome binary: $NETKIT_CHROMIUM if
// set, else the first of chromium, chromium-browser, google-chrome,
// google-chrome-stable and headless_shell found on $PATH. It returns an error
// wrapping ErrNotFound when there is none, or when $NETKIT_CHROMIUM is set but
// does not name an executable file.
func Find() (string, error) {
	if p := os.Getenv(EnvPath); p != "" {
		path, err := exec.LookPath(p)
		if err != nil {
			return "", fmt.Errorf("%w: $%s=%q: %v", ErrNotFound, EnvPath, p, err)
		}
		return path, nil
	}
	for _, name := range candidates {
		if path, err := exec.LookPath(name); err == nil {
			return path, nil
		}
	}
	return "", fmt.Errorf("%w (looked for $%s and %v on $PATH)", ErrNotFound, EnvPath, candidates)
}
