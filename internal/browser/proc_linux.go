package browser

import "syscall"

// setDeathSignal asks Linux to kill the browser when the process that
// started it dies, so a test binary killed by its timeout leaves no browser
// behind. (The browser's own children notice their parent's death.)
func setDeathSignal(a *syscall.SysProcAttr) {
	a.Pdeathsig = syscall.SIGKILL
}
