//go:build nounsafe || purego

package timerhook

// Callgrind reports whether the hook makes callgrind's client requests
// (false in the nounsafe and purego builds).
const Callgrind = false

// requestFiles define netbenchZero and netbenchDump as empty functions:
// the twin's hook labels profiles only.
var requestFiles = map[string]string{
	"netbench_callgrind.go": `package testing

func netbenchZero() {}

func netbenchDump(capped bool) {}
`,
}
