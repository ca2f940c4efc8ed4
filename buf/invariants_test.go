//go:build invariants

package buf_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestInvariantsPoisonReleased(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(64)
	b.WriteString("secret")
	view := b.Bytes()
	b.Release()
	require.Equal(t, bytes.Repeat([]byte{0xDE}, len(view)), view, "released memory not poisoned")
	// The header is never recycled, so a stale *Buffer panics even after
	// many more gets.
	for range 100 {
		buf.Get(64).Release()
	}
	msg := panicMessage(t, func() { b.WriteByte(1) })
	for _, want := range []string{"allocated at:", "released at:", "TestInvariantsPoisonReleased"} {
		assert.Contains(t, msg, want, "use-after-release panic")
	}
}

func TestInvariantsPoisonGrownOut(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(16)
	defer b.Release()
	b.WriteString("0123456789abcdef")
	old := b.Bytes()
	b.WriteString("more than sixteen bytes now")
	require.Equal(t, byte(0xDE), old[0], "block grown out of not poisoned: %q", old)
	require.True(t, strings.HasPrefix(string(b.Bytes()), "0123456789abcdef"), "growth lost data: %q", b.Bytes())
}
