//go:build nounsafe

package pwait2

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/sys/unix"
)

// TestWaitUnsupported: the pure-Go twin answers as an old kernel does.
func TestWaitUnsupported(t *testing.T) {
	_, err := Wait(-1, make([]unix.EpollEvent, 1), 0)
	assert.Equal(t, unix.ENOSYS, err)
}
