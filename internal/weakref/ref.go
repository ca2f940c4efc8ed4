//go:build !nounsafe

package weakref

import (
	"reflect"
	"unsafe"
	"weak"
)

// Supported reports whether Make can succeed (false with -tags nounsafe).
const Supported = true

// A Ref is a weak reference to the value of an interface of type I whose
// dynamic type is a pointer type. The zero Ref refers to nothing.
type Ref[I any] struct {
	typ unsafe.Pointer     // the interface's type word: its dynamic type
	p   weak.Pointer[byte] // its data word, held weakly
}

// iface is the layout of every interface value: a type word (an itab for
// non-empty interfaces) and a data word, which for a pointer type is the
// pointer itself.
type iface struct {
	typ, data unsafe.Pointer
}

// Make returns a weak reference to v. ok is false, and r the zero Ref,
// when I is not an interface type, v is nil, or v's dynamic type is not a
// pointer to a value of non-zero size. A pointer to a package-level
// variable is accepted and never becomes unreachable. Make allocates on
// the first reference to a given object.
func Make[I any](v I) (r Ref[I], ok bool) {
	if reflect.TypeFor[I]().Kind() != reflect.Interface {
		return Ref[I]{}, false
	}
	t := reflect.TypeOf(any(v))
	if t == nil || t.Kind() != reflect.Pointer || t.Elem().Size() == 0 {
		return Ref[I]{}, false
	}
	w := (*iface)(unsafe.Pointer(&v))
	return Ref[I]{typ: w.typ, p: weak.Make((*byte)(w.data))}, true
}

// Value returns the value r refers to while it is reachable otherwise; ok
// is false once it has been collected, and for the zero Ref.
func (r Ref[I]) Value() (v I, ok bool) {
	p := r.p.Value()
	if p == nil || r.typ == nil {
		return v, false
	}
	w := (*iface)(unsafe.Pointer(&v))
	w.typ, w.data = r.typ, unsafe.Pointer(p)
	return v, true
}

// Is reports whether v is the value r refers to (which is then reachable,
// through v). It allocates nothing.
func (r Ref[I]) Is(v I) bool {
	w := (*iface)(unsafe.Pointer(&v))
	return r.typ != nil && w.typ == r.typ && w.data != nil && unsafe.Pointer(r.p.Value()) == w.data
}
