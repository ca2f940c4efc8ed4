// Package weakref holds weak references to the pointers inside interface
// values: a Ref remembers which value an interface held, and can give it
// back, without keeping it reachable. buf uses it to remember the
// connection Composite.WriteTo last wrote to without keeping a closed
// connection alive.
//
// Go's weak pointers need a static pointer type, and an interface's pointer
// can only be taken out and put back with unsafe; that is done in ref.go,
// the only use of unsafe here. Built with -tags nounsafe, ref_safe.go
// replaces it: Make never succeeds, so callers keep nothing.
package weakref
