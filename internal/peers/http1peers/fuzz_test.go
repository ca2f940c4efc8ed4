package http1peers

import (
	"testing"

	"github.com/netkit/netkit/codec/http1"
	"github.com/stretchr/testify/require"
)

// FuzzParseRequest is the differential of TestDifferentialNetHTTP on
// arbitrary bytes: netkit must not panic, its errors must be its
// package's, and it must agree with net/http on accepting the request at
// the front of the input, and on its reading, but for the rows of the
// stricter table. A netkit Decoder that allows bare LF must accept all
// that the default one accepts, and read it alike. Seeds: the generator's
// valid and mutated requests, the rows' examples and the benchmarks'
// inputs.
func FuzzParseRequest(f *testing.F) {
	g := newGen(7)
	for range 60 {
		f.Add(g.valid())
	}
	for range 4 * len(mutations) {
		in, _ := g.mutated()
		f.Add(in)
	}
	for _, r := range stricterRules {
		if len(r.example) < 4<<10 {
			f.Add([]byte(r.example))
		}
	}
	for _, in := range benchInputs {
		f.Add([]byte(in.in))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if _, _, err := compare(in); err != nil {
			t.Fatalf("%q: %v", in, err)
		}
		nk, err := NetkitParse(in)
		if err != nil {
			return
		}
		lf, err := NetkitParse(in, http1.WithAllowBareLF(true))
		require.NoError(t, err, "%q: the default parser accepts it, WithAllowBareLF(true) refuses", in)
		d := Diff(nk, lf)
		require.Equal(t, "", d, "%q: default vs WithAllowBareLF(true): %s", in, d)
	})
}
