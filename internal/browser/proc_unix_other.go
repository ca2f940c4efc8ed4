//go:build unix && !linux

package browser

import "syscall"

// setDeathSignal does nothing: only Linux has a parent-death signal.
func setDeathSignal(*syscall.SysProcAttr) {}

// killMentioning does nothing: without /proc there is no cheap way to find
// the processes that left the browser's process group. They exit once the
// browser is gone.
func killMentioning(string) {}
