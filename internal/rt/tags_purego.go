//go:build purego

package rt

// Asm reports whether rt's subpackages may use their assembly (false when
// built with the purego tag, which selects their Go twins). Whether a
// piece of assembly actually runs depends on the architecture too: see
// each subpackage.
const Asm = false
