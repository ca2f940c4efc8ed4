//go:build unix

package browser

import (
	"os/exec"
	"syscall"
)

// setProcAttr puts the browser in a process group of its own, so killTree
// reaches its renderer, GPU and utility processes too.
func setProcAttr(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	setDeathSignal(cmd.SysProcAttr)
}

// killTree kills the browser's whole process group.
func killTree(cmd *exec.Cmd) {
	if cmd == nil || cmd.Process == nil {
		return
	}
	// The group id is the leader's pid (Setpgid with Pgid 0). Killing the
	// group after the leader was reaped is harmless: its pid cannot be reused
	// as a group id while members of the group live on.
	syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	cmd.Process.Kill()
}
