package timerhook

import (
	"go/parser"
	"go/token"
	"strings"
	"testing"

	"github.com/netkit/netkit/internal/rt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var config = Config{Label: "k", Running: "on", Stopped: "off", TimedDump: "timed", CappedDump: "capped", MaxDumps: 7}

// TestFiles: every Go file of the hook parses as package testing and
// defines what the others call; the names and the limit are filled in;
// the requests are made by the default build only, in amd64 assembly
// that carries valgrind's marker sequence.
func TestFiles(t *testing.T) {
	files := Files(config)
	defined := map[string]int{}
	for name, src := range files {
		if !strings.HasSuffix(name, ".go") {
			continue
		}
		f, err := parser.ParseFile(token.NewFileSet(), name, src, parser.SkipObjectResolution)
		require.NoError(t, err, "%s:\n%s", name, src)
		assert.Equal(t, "testing", f.Name.Name, name)
		for _, fn := range []string{"func netbenchTimer(", "func netbenchZero(", "func netbenchDump("} {
			if strings.Contains(string(src), fn) {
				defined[fn]++
			}
		}
	}
	hook := string(files["netbench_timer.go"])
	assert.Contains(t, hook, `pprof.Labels("k", "on")`)
	assert.Contains(t, hook, `pprof.Labels("k", "off")`)
	assert.Contains(t, hook, "netbenchMaxDumps = 7")
	assert.Equal(t, 1, defined["func netbenchTimer("])
	asm, ok := files["netbench_callgrind_amd64.s"]
	assert.Equal(t, rt.Unsafe && rt.Asm, ok, "assembly in the default build only")
	assert.Equal(t, ok, Callgrind)
	if ok {
		assert.Equal(t, 2, defined["func netbenchZero("], "amd64 and the others")
		assert.Contains(t, string(asm), "BYTE $0x48; BYTE $0x87; BYTE $0xdb", "xchg %rbx,%rbx after the rotations")
		assert.NotContains(t, string(asm), "%!", "a formatting verb left in")
		assert.Contains(t, string(files["netbench_callgrind_amd64.go"]), `[]byte("timed" + "\x00")`)
		assert.Contains(t, string(files["netbench_callgrind_amd64.go"]), `[]byte("capped" + "\x00")`)
	} else {
		assert.Equal(t, 1, defined["func netbenchZero("])
	}
}
