package browser

// PID returns the browser's process id, which is also its process group id.
func (b *Browser) PID() int { return b.cmd.Process.Pid }

// ProfileDir returns the browser's temporary directory.
func (b *Browser) ProfileDir() string { return b.dir }
