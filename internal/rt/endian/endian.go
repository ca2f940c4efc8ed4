// Package endian loads and stores fixed-width integers in big- and
// little-endian byte order, as encoding/binary's BigEndian and LittleEndian
// do, for packages that must not link encoding/binary (it imports reflect).
//
// On little-endian machines that allow unaligned access (amd64, arm64,
// 386, ppc64le, riscv64, loong64) each function is one load or store, plus a
// byte swap for big-endian order, and is cheap enough for the compiler to
// inline into its callers' own inlined methods. Elsewhere, and under the
// build tag nounsafe, the twin in portable.go assembles the bytes with
// shifts. Every function panics if b is shorter than the width, after one
// bounds check.
package endian
