package buf

import (
	"bytes"
	"net"
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/internal/invariants"
)

// TestCompositeDiscardAllState checks that Discard(Len) leaves the state
// Reset used to leave: arrays kept for reuse at offset 0, the page index
// invalid, WriteTo's connection forgotten, and (invariants build) the
// scratch area poisoned.
func TestCompositeDiscardAllState(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	client, err := net.Dial("tcp", ln.Addr().String())
	require.NoError(t, err)
	defer client.Close()
	server, err := ln.Accept()
	require.NoError(t, err)
	defer server.Close()

	a := NewAllocator(WithLeakLevel(LeakOff))
	c := NewComposite()
	defer c.Release()
	w := a.Get(2)
	w.WriteString("hi")
	c.Append(w)
	n, err := c.WriteTo(client)
	require.NoError(t, err)
	require.EqualValues(t, 2, n, "WriteTo")
	require.Equal(t, client, c.raw.conn, "WriteTo did not keep the connection")
	for range 40 {
		b := a.Get(3)
		b.WriteString("abc")
		c.Append(b)
	}
	for i := range 200 { // scattered lookups build the page index
		c.GetUint16(i * 37 % 40 * 3)
	}
	c.Next(5) // straddles: uses the scratch area
	require.True(t, c.pages.valid, "setup: no page index or scratch area to drop")
	require.NotEmpty(t, c.scratch, "setup: no page index or scratch area to drop")
	capComps := cap(c.comps)
	require.NoError(t, c.Discard(c.Len()))
	require.Equal(t, [5]int{}, [5]int{c.r, c.w, c.h, c.cur, c.last}, "r, w, h, cur, last after Discard(Len)")
	require.Nil(t, c.rp, "rp after Discard(Len)")
	require.Empty(t, c.comps, "components after Discard(Len)")
	require.Empty(t, c.ends, "ends after Discard(Len)")
	require.Equal(t, capComps, cap(c.comps), "component array capacity %d after Discard(Len), want %d (kept)", cap(c.comps), capComps)
	require.False(t, c.pages.valid, "page index or accessor cache still valid after Discard(Len)")
	require.Nil(t, c.wp, "page index or accessor cache still valid after Discard(Len)")
	require.Nil(t, c.raw.conn, "WriteTo's connection still kept after Discard(Len)")
	require.Nil(t, c.raw.rc, "WriteTo's RawConn still kept after Discard(Len)")
	require.False(t, c.raw.checked, "WriteTo's stream check still kept after Discard(Len)")
	if invariants.Enabled {
		require.Equal(t, bytes.Repeat([]byte{poison}, cap(c.scratch)), c.scratch[:cap(c.scratch)], "scratch not poisoned")
	}
}

// TestDeps checks what package buf links: not net (Buffers returns
// [][]byte and the writev path reaches descriptors through syscall.Conn),
// not reflect (through fmt or encoding/binary), and not search (package
// bufsearch searches composites with it), so programs that use buffers
// only stay small and the layers point one way.
func TestDeps(t *testing.T) {
	gobin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command:", err)
	}
	out, err := exec.Command(gobin, "list", "-deps", ".").Output()
	if err != nil {
		t.Skip("go list -deps:", err)
	}
	deps := strings.Fields(string(out))
	for _, banned := range []string{"net", "reflect", "fmt", "github.com/netkit/netkit/search"} {
		assert.NotContains(t, deps, banned)
	}
}
