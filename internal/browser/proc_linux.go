package browser

import (
	"bytes"
	"os"
	"strconv"
	"syscall"
)

// setDeathSignal asks Linux to kill the browser when the process that
// started it dies, so a test binary killed by its timeout leaves no browser
// behind. (The browser's own children notice their parent's death.)
func setDeathSignal(a *syscall.SysProcAttr) {
	a.Pdeathsig = syscall.SIGKILL
}

// killMentioning kills every process whose command line mentions dir, the
// browser's temporary directory. It catches the processes that leave the
// browser's process group, such as Chromium's crash handler, which starts a
// session of its own.
func killMentioning(dir string) {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return
	}
	self := os.Getpid()
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err == nil && bytes.Contains(cmdline, []byte(dir)) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	}
}
