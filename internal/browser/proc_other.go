//go:build !unix

package browser

import "os/exec"

// setProcAttr does nothing on this platform.
func setProcAttr(*exec.Cmd) {}

// killTree kills the browser process; its children notice and exit.
func killTree(cmd *exec.Cmd) {
	if cmd != nil && cmd.Process != nil {
		cmd.Process.Kill()
	}
}

// killMentioning does nothing on this platform.
func killMentioning(string) {}
