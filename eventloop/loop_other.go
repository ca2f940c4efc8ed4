//go:build !linux

package eventloop

// sysLoop has nothing to hold where loops cannot run.
type sysLoop struct{}

func (s *sysLoop) open() error { return ErrUnsupported }
func (s *sysLoop) close()      {}
func (s *sysLoop) wake()       {}

func (l *Loop) run(started chan<- struct{}) { close(started); close(l.done) }

// Register returns ErrUnsupported: loops run on Linux only.
func (l *Loop) Register(fd int, events uint32, onReady func(events uint32)) error {
	return ErrUnsupported
}

// Modify returns ErrUnsupported.
func (l *Loop) Modify(fd int, events uint32) error { return ErrUnsupported }

// Unregister returns ErrUnsupported.
func (l *Loop) Unregister(fd int) error { return ErrUnsupported }

// Event bits (epoll's values, for code that builds everywhere).
const (
	Readable        = 0x1
	Writable        = 0x4
	Error           = 0x8
	Hangup          = 0x10
	PeerClosedWrite = 0x2000
	EdgeTriggered   = 1 << 31
)
