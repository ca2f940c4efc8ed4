package benchinstr

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzParseCallgrind checks ParseCallgrind against a slow reference on
// files of several dumps made from the input (each byte pair is one dump:
// its trigger and its totals), and that arbitrary bytes give a count or
// an error, never a panic.
func FuzzParseCallgrind(f *testing.F) {
	f.Add([]byte{0, 7, 1, 9, 3, 5}, []byte("events: Ir\nsummary: 12\n"))
	f.Add([]byte{2, 1, 3, 200}, []byte("part: 1\nevents: Ir\ntotals: 5\npart: 2\ntotals: x\n"))
	f.Add([]byte{3, 4}, []byte(""))
	triggers := []string{"Client Request: " + TimedDump, "Client Request: " + CappedDump, "Client Request", "Program termination"}
	f.Fuzz(func(t *testing.T, spec, raw []byte) {
		_, _ = ParseCallgrind(strings.NewReader(string(raw)))

		var file strings.Builder
		file.WriteString("# callgrind format\nversion: 1\n")
		var timed, capped, sawCapped bool
		var timedSum, allSum, afterCapped uint64
		var first uint64
		n := len(spec) / 2
		for i := range n {
			trig, v := triggers[int(spec[2*i])%len(triggers)], uint64(spec[2*i+1])*1000
			summary := v + 3 // summary lines differ from totals in timed dumps
			fmt.Fprintf(&file, "\npart: %d\ndesc: Trigger: %s\n\nevents: Ir\nsummary: %d\n\nfn=(1) f\n0 %d\ntotals: %d\n", i+1, trig, summary, v, v)
			if i == 0 {
				first = summary
			}
			allSum += v
			switch trig {
			case "Client Request: " + TimedDump:
				timed = true
				timedSum += v
			case "Client Request: " + CappedDump:
				timed, capped = true, true
				timedSum += v
				sawCapped = true
			default:
				if sawCapped {
					afterCapped += v
				}
			}
		}
		got, err := ParseCallgrind(strings.NewReader(file.String()))
		if n == 0 {
			require.Error(t, err, "a file without dumps")
			return
		}
		require.NoError(t, err, "%s", file.String())
		want := Count{Timed: timed, Capped: capped}
		switch {
		case timed:
			want.Instructions = timedSum + afterCapped
		case n == 1:
			want.Instructions = first
		default:
			want.Instructions = allSum
		}
		require.Equal(t, want, got, "%s", file.String())
	})
}
