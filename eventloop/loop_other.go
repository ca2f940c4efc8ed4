//go:build !linux

package eventloop

// sysLoop has nothing to hold where loops cannot run.
type sysLoop struct{}

func (s *sysLoop) open() error { return ErrUnsupported }
func (s *sysLoop) close()      {}
func (s *sysLoop) wake()       {}

func (l *Loop) run(started chan<- struct{}) { close(started); close(l.done) }

// Register returns ErrUnsupported: loops run on Linux only.
func (l *Loop) Register(fd int, events Events, onReady func(events Events)) error {
	return ErrUnsupported
}

// Modify returns ErrUnsupported.
func (l *Loop) Modify(fd int, events Events) error { return ErrUnsupported }

// Unregister returns ErrUnsupported.
func (l *Loop) Unregister(fd int) error { return ErrUnsupported }
