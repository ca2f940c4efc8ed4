package http1peers

import (
	"errors"
	"flag"
	"fmt"
	"strings"
	"testing"

	"github.com/netkit/netkit/codec/http1"
	"github.com/stretchr/testify/require"
)

// An outcome is what the two parsers did with one input.
type outcome int

const (
	bothAccept outcome = iota
	bothReject
	stricterRow // netkit rejects, net/http accepts, and a row of stricterRules says why
	looserRow   // netkit accepts, net/http rejects, and a row of looserRules names it
)

// compare parses in with netkit and net/http and returns the outcome, or
// an error saying how they disagree beyond the table of stricter rules:
// their readings of a request both accept differ; netkit accepts what
// net/http rejects; netkit rejects, net/http accepts, and no row matches;
// or netkit's error is not one of its package's.
func compare(in []byte) (outcome, *stricter, error) {
	nk, nkErr := NetkitParse(in)
	nh, nhErr := NetHTTPRead(in)
	if nhErr == nil && nh.Major == 1 && nh.Minor > 1 {
		nh.Minor = 1 // netkit reads HTTP/1.2 to HTTP/1.9 as HTTP/1.1 (RFC 9110 §2.5)
	}
	if nkErr != nil && !errors.Is(nkErr, http1.ErrShort) {
		var se *http1.SyntaxError
		var v *http1.Violation
		if !errors.As(nkErr, &se) || !errors.As(nkErr, &v) {
			return 0, nil, fmt.Errorf("netkit's error %v (%T) is not a *SyntaxError of a *Violation", nkErr, nkErr)
		}
		switch http1.StatusOf(nkErr) {
		case 400, 413, 414, 417, 431, 501, 505:
		default:
			return 0, nil, fmt.Errorf("netkit's error %v has status %d", nkErr, http1.StatusOf(nkErr))
		}
	}
	switch {
	case nkErr == nil && nhErr == nil:
		if d := Diff(nk, nh); d != "" {
			return 0, nil, fmt.Errorf("netkit vs net/http: %s", d)
		}
		return bothAccept, nil, nil
	case nkErr != nil && nhErr != nil:
		return bothReject, nil, nil
	case nkErr == nil:
		if row := documentedLooser(nhErr); row != nil {
			return looserRow, nil, nil
		}
		return 0, nil, fmt.Errorf("netkit accepts what net/http rejects (%v)", nhErr)
	}
	if row := documented(nkErr, in); row != nil {
		if row.server != 200 {
			// The row says net/http's server refuses it later: check.
			if st, err := ServerStatus(in); err != nil || st < 400 {
				return 0, nil, fmt.Errorf("netkit rejects (%v) what net/http accepts, by the row %q, which says net/http's server answers %d; it answers %d (%v)", nkErr, row.rule, row.server, st, err)
			}
		}
		return stricterRow, row, nil
	}
	return 0, nil, fmt.Errorf("netkit rejects (%v) what net/http accepts, and no row of the stricter table says why", nkErr)
}

var seed = flag.Uint64("seed", 2026, "the seed of TestDifferentialNetHTTP's generator")

// TestDifferentialNetHTTP runs generated requests through netkit's
// Decoder.DecodeBytes and net/http's ReadRequest: valid ones, which both must
// accept and read alike, and mutated ones, on which they must agree but
// for the stricter table's rows. It logs how often each mutation was
// accepted, rejected by both, or rejected by netkit alone.
func TestDifferentialNetHTTP(t *testing.T) {
	n := 20000
	if testing.Short() {
		n = 2000
	}
	g := newGen(*seed)
	for range n {
		in := g.valid()
		switch o, _, err := compare(in); {
		case err != nil:
			t.Fatalf("valid request %q: %v", in, err)
		case o != bothAccept:
			t.Fatalf("valid request %q: rejected by netkit (%v)", in, parseErr(in))
		}
	}
	type counts struct{ accepted, rejected, stricter, looser int }
	byMutation := map[string]*counts{}
	byRow := map[*stricter]int{}
	fails := 0
	for range 3 * n {
		in, name := g.mutated()
		c := byMutation[name]
		if c == nil {
			c = &counts{}
			byMutation[name] = c
		}
		o, row, err := compare(in)
		if err != nil {
			t.Errorf("mutation %q: %v\n\tinput %q", name, err, in)
			if fails++; fails == 30 {
				t.FailNow()
			}
			continue
		}
		switch o {
		case bothAccept:
			c.accepted++
		case bothReject:
			c.rejected++
		case looserRow:
			c.looser++
		default:
			c.stricter++
			byRow[row]++
		}
	}
	for _, m := range mutations {
		if c := byMutation[m.name]; c != nil {
			t.Logf("%-26s both accept %5d, both reject %5d, netkit alone rejects %5d, net/http alone rejects %d", m.name, c.accepted, c.rejected, c.stricter, c.looser)
		}
	}
	for i := range stricterRules {
		t.Logf("row %2d (%s): %d", i, stricterRules[i].rule, byRow[&stricterRules[i]])
	}
}

func parseErr(in []byte) error {
	_, err := NetkitParse(in)
	return err
}

// TestGeneratorValid checks that net/http accepts every valid request of
// the generator, so that the differential tests start from requests both
// parsers should take.
func TestGeneratorValid(t *testing.T) {
	g := newGen(1)
	for range 5000 {
		in := g.valid()
		_, err := NetHTTPRead(in)
		require.NoError(t, err, "net/http rejects the valid %q", in)
	}
}

// TestTrailerLimitMatchesNetHTTP: around net/http's 4 KiB trailer limit
// (its read buffer), netkit's default decoder accepts and refuses the same
// trailer sections net/http does (found by FuzzParseRequest: netkit used to
// take trailers up to MaxHeaderBytes).
func TestTrailerLimitMatchesNetHTTP(t *testing.T) {
	const head = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n"
	for section := 4090; section <= 4100; section++ {
		// One field "X: vvv…\r\n" and the empty line: section bytes.
		field := "X: " + strings.Repeat("v", section-len("X: \r\n\r\n")) + "\r\n"
		in := []byte(head + field + "\r\n")
		out, _, err := compare(in)
		require.NoError(t, err, "trailer section of %d bytes", section)
		want := bothAccept
		if section > 4096 {
			want = bothReject
		}
		require.Equal(t, want, out, "trailer section of %d bytes", section)
	}
}
