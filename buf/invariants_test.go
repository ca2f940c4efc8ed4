//go:build invariants

package buf_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
)

func TestInvariantsPoisonReleased(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(64)
	b.WriteString("secret")
	view := b.Bytes()
	b.Release()
	if !bytes.Equal(view, bytes.Repeat([]byte{0xDE}, len(view))) {
		t.Fatalf("released memory not poisoned: %q", view)
	}
	// The header is never recycled, so a stale *Buffer panics even after
	// many more gets.
	for range 100 {
		buf.Get(64).Release()
	}
	msg := panicMessage(t, func() { b.WriteByte(1) })
	for _, want := range []string{"allocated at:", "released at:", "TestInvariantsPoisonReleased"} {
		if !strings.Contains(msg, want) {
			t.Errorf("use-after-release panic lacks %q:\n%s", want, msg)
		}
	}
}

func TestInvariantsPoisonGrownOut(t *testing.T) {
	buftest.CheckLeaks(t)
	b := buf.Get(16)
	defer b.Release()
	b.WriteString("0123456789abcdef")
	old := b.Bytes()
	b.WriteString("more than sixteen bytes now")
	if old[0] != 0xDE {
		t.Fatalf("block grown out of not poisoned: %q", old)
	}
	if !strings.HasPrefix(string(b.Bytes()), "0123456789abcdef") {
		t.Fatalf("growth lost data: %q", b.Bytes())
	}
}
