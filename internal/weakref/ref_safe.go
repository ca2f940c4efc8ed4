//go:build nounsafe

package weakref

// Supported reports whether Make can succeed (false with -tags nounsafe).
const Supported = false

// A Ref would be a weak reference to the value of an interface of type I;
// without unsafe it refers to nothing.
type Ref[I any] struct{}

// Make returns the zero Ref and false: without unsafe the pointer inside an
// interface cannot be held weakly.
func Make[I any](v I) (r Ref[I], ok bool) { return Ref[I]{}, false }

// Value returns the zero I and false.
func (r Ref[I]) Value() (v I, ok bool) { return v, false }

// Is reports false.
func (r Ref[I]) Is(v I) bool { return false }
