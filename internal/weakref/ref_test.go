package weakref_test

import (
	"io"
	"runtime"
	"testing"
	"time"

	"github.com/netkit/netkit/internal/weakref"
)

type thing struct{ _ [4]int }

func (*thing) Write(p []byte) (int, error) { return len(p), nil }

type value struct{ _ int }

func (value) Write(p []byte) (int, error) { return len(p), nil }

func TestRef(t *testing.T) {
	if !weakref.Supported {
		if _, ok := weakref.Make[io.Writer](&thing{}); ok {
			t.Fatal("Make succeeded without unsafe")
		}
		t.Skip("built with -tags nounsafe")
	}
	x, y := &thing{}, &thing{}
	r, ok := weakref.Make[io.Writer](x)
	if !ok {
		t.Fatal("Make of a pointer failed")
	}
	if !r.Is(x) || r.Is(y) || r.Is(nil) {
		t.Fatalf("Is(x) %v, Is(y) %v, Is(nil) %v; want true, false, false", r.Is(x), r.Is(y), r.Is(nil))
	}
	if v, ok := r.Value(); !ok || v != io.Writer(x) {
		t.Fatalf("Value = %v, %v; want x", v, ok)
	}
	for _, v := range []io.Writer{nil, value{}, new(struct{ io.Writer })} {
		if _, ok := weakref.Make(v); ok != (v != nil && v != io.Writer(value{})) {
			t.Errorf("Make(%T) ok = %v", v, ok)
		}
	}
	if _, ok := weakref.Make(42); ok {
		t.Error("Make of an int (not an interface type) succeeded")
	}
	var zero weakref.Ref[io.Writer]
	if _, ok := zero.Value(); ok || zero.Is(x) {
		t.Error("the zero Ref refers to something")
	}
	runtime.KeepAlive(x)
}

// TestRefDoesNotKeepAlive checks that a Ref does not keep its value
// reachable: the value is collected, and Value then reports false.
func TestRefDoesNotKeepAlive(t *testing.T) {
	if !weakref.Supported {
		t.Skip("built with -tags nounsafe")
	}
	x := &thing{}
	collected := make(chan struct{})
	runtime.AddCleanup(x, func(struct{}) { close(collected) }, struct{}{})
	r, _ := weakref.Make[io.Writer](x)
	x = nil
	for range 10 {
		runtime.GC()
		select {
		case <-collected:
			if _, ok := r.Value(); ok {
				t.Fatal("Value after collection reports ok")
			}
			return
		case <-time.After(10 * time.Millisecond):
		}
	}
	t.Fatal("the value of a Ref was not collected")
}

var global thing

// TestRefGlobal checks that a pointer to a package-level variable, which
// the runtime keeps outside the heap, is accepted and stays reachable.
func TestRefGlobal(t *testing.T) {
	if !weakref.Supported {
		t.Skip("built with -tags nounsafe")
	}
	r, ok := weakref.Make[io.Writer](&global)
	if !ok {
		t.Fatal("Make of a pointer to a global failed")
	}
	runtime.GC()
	if v, ok := r.Value(); !ok || v != io.Writer(&global) || !r.Is(&global) {
		t.Fatalf("Value = %v, %v; want the global", v, ok)
	}
}
