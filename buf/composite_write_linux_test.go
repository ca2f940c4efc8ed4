package buf_test

import (
	"io"
	"math/rand/v2"
	"os"
	"testing"

	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"

	"github.com/netkit/netkit/buf/buftest"
)

// cwPipe returns a pipe whose buffer holds one page (F_SETPIPE_SZ), so
// that a writev of more than that is written in part. It sets the size
// through SyscallConn: File.Fd would make the descriptor blocking.
func cwPipe(t *testing.T) (r, w *os.File) {
	t.Helper()
	r, w, err := os.Pipe()
	require.NoError(t, err)
	t.Cleanup(func() {
		r.Close()
		w.Close()
	})
	rc, err := w.SyscallConn()
	require.NoError(t, err)
	var size int
	err = rc.Control(func(fd uintptr) {
		if _, err = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, 4096); err == nil {
			size, err = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0)
		}
	})
	require.NoError(t, err, "setting the pipe size")
	if size != 4096 {
		t.Logf("pipe size %d, not 4096", size)
	}
	return r, w
}

// TestCompositeWriteToPipe writes to a one-page pipe read a little at a
// time: every writev is a partial write.
func TestCompositeWriteToPipe(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(31, 32))
	x := cwCompose(t, rng, cwMixedSizes(rng, 1<<20))
	r, w := cwPipe(t)
	cwWriteAll(t, x, w, cwReadAll(r, 1000), w.Close, x.data)
}

// TestCompositeWriteToPipeManyComponents writes 3000 small components, more
// than one writev takes, through the one-page pipe.
func TestCompositeWriteToPipeManyComponents(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(33, 34))
	sizes := make([]int, 3000)
	for i := range sizes {
		sizes[i] = 1 + rng.IntN(40)
	}
	x := cwCompose(t, rng, sizes)
	r, w := cwPipe(t)
	cwWriteAll(t, x, w, cwReadAll(r, 512), w.Close, x.data)
}

// TestCompositeWriteToPipeDeadline is TestCompositeWriteToDeadline on the
// one-page pipe: nothing is read until the deadline has expired.
func TestCompositeWriteToPipeDeadline(t *testing.T) {
	buftest.CheckLeaks(t)
	rng := rand.New(rand.NewPCG(35, 36))
	sizes := make([]int, 50)
	for i := range sizes {
		sizes[i] = 1000 + rng.IntN(3000)
	}
	x := cwCompose(t, rng, sizes)
	r, w := cwPipe(t)
	cwDeadlineWrite(t, x, w, func() io.Reader { return r }, w.Close)
}
