package query_test

import (
	"testing"

	"github.com/netkit/netkit/codec/query"
	"github.com/netkit/netkit/internal/race"
)

func skipUnderRace(t *testing.T) {
	t.Helper()
	if race.Enabled {
		t.Skip("allocation counts are not meaningful under the race detector")
	}
}

func TestParseNoAllocs(t *testing.T) {
	skipUnderRace(t)
	var vs query.Values
	inputs := [][]byte{[]byte(shortQuery), []byte(eightParams), []byte("a=1&b=%zz"), []byte("")}
	for _, in := range inputs[:2] {
		if err := vs.Parse(in); err != nil { // grow the storage once
			t.Fatal(err)
		}
	}
	allocs := testing.AllocsPerRun(1000, func() {
		for _, in := range inputs[:2] {
			if err := vs.Parse(in); err != nil {
				t.Fatal(err)
			}
		}
		_ = vs.Parse(inputs[3])
	})
	if allocs != 0 {
		t.Fatalf("Parse in steady state: %v allocs, want 0", allocs)
	}
	lenient := query.Values{Lenient: true, SemicolonIsNormalChar: true}
	lenient.Parse([]byte(eightParams))
	allocs = testing.AllocsPerRun(1000, func() {
		if err := lenient.Parse(inputs[2]); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("lenient Parse in steady state: %v allocs, want 0", allocs)
	}
}

func TestGetNoAllocs(t *testing.T) {
	skipUnderRace(t)
	var vs query.Values
	if err := vs.Parse([]byte(eightParams)); err != nil {
		t.Fatal(err)
	}
	allocs := testing.AllocsPerRun(1000, func() {
		if _, ok := vs.Get("sort"); !ok {
			t.Fatal("missing key")
		}
		if vs.Has("nope") {
			t.Fatal("phantom key")
		}
		for range vs.All() {
		}
	})
	if allocs != 0 {
		t.Fatalf("Get/Has/All: %v allocs, want 0", allocs)
	}
}

func TestAppendEncodeNoAllocs(t *testing.T) {
	skipUnderRace(t)
	var vs query.Values
	if err := vs.Parse([]byte(eightParams)); err != nil {
		t.Fatal(err)
	}
	dst := make([]byte, 0, 1024)
	allocs := testing.AllocsPerRun(1000, func() {
		dst = vs.AppendEncode(dst[:0])
	})
	if allocs != 0 {
		t.Fatalf("AppendEncode: %v allocs, want 0", allocs)
	}
}

func TestEscapeUnescapeNoAllocs(t *testing.T) {
	skipUnderRace(t)
	dst := make([]byte, 0, 4096)
	raw := []byte(escapeInput())
	esc := []byte(unescapeInput)
	allocs := testing.AllocsPerRun(1000, func() {
		dst = query.AppendEscape(dst[:0], raw)
		var err error
		if dst, err = query.AppendUnescape(dst[:0], esc); err != nil {
			t.Fatal(err)
		}
	})
	if allocs != 0 {
		t.Fatalf("AppendEscape/AppendUnescape: %v allocs, want 0", allocs)
	}
	allocs = testing.AllocsPerRun(1000, func() {
		if query.Escape("plain-text_1.0~") == "" {
			t.Fatal("empty")
		}
		if s, _ := query.Unescape("no-escapes"); s == "" {
			t.Fatal("empty")
		}
	})
	if allocs != 0 {
		t.Fatalf("Escape/Unescape without escapes: %v allocs, want 0", allocs)
	}
}
