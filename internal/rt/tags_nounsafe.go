//go:build nounsafe

package rt

// Unsafe reports whether rt's subpackages use unsafe and go:linkname
// (false when built with the nounsafe tag, which selects their safe twins).
const Unsafe = false
