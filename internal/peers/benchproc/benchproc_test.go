package benchproc

import (
	"context"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestNamesOrder(t *testing.T) {
	r := Registry{Starters: map[string]Starter{"zeta": nil, "net": nil, "alpha": nil, "netkit": nil}, First: []string{"netkit", "net"}}
	if got, want := r.Names(), []string{"netkit", "net", "alpha", "zeta"}; !slices.Equal(got, want) {
		t.Fatalf("Names = %v, want %v", got, want)
	}
	if _, err := r.Start("nope", "127.0.0.1:0"); err == nil || !strings.Contains(err.Error(), `unknown -impl "nope"`) {
		t.Fatalf("Start(nope): %v", err)
	}
}

func TestSplit(t *testing.T) {
	got, err := Split("server", " a, ,b,", []string{"a", "b"})
	if err != nil || !slices.Equal(got, []string{"a", "b"}) {
		t.Fatalf("Split = %v, %v", got, err)
	}
	if _, err := Split("server", "a,c", []string{"a", "b"}); err == nil || err.Error() != `run: unknown server "c" (have [a b])` {
		t.Fatalf("Split(c): %v", err)
	}
}

func TestMedianRatio(t *testing.T) {
	if m := Median([]float64{3, 1, 2}); m != 2 {
		t.Errorf("Median odd = %v", m)
	}
	if m := Median([]float64{4, 1, 2, 3}); m != 2.5 {
		t.Errorf("Median even = %v", m)
	}
	if m := Median(nil); !math.IsNaN(m) {
		t.Errorf("Median(nil) = %v", m)
	}
	x, y := math.NaN(), math.Inf(1)
	ZeroNaN(&x, &y)
	if x != 0 || y != 0 {
		t.Errorf("ZeroNaN: %v %v", x, y)
	}
	if Ratio(1.234) != "1.23x" || Ratio(0) != "–" || Ratio(math.NaN()) != "–" {
		t.Errorf("Ratio")
	}
}

func TestInterleave(t *testing.T) {
	var got []string
	err := Interleave(context.Background(), []string{"s"}, func(s string) string { return s }, []string{"a", "b", "c"}, 2,
		func(sc, srv string, r int) error {
			got = append(got, srv)
			return nil
		})
	if err != nil || strings.Join(got, "") != "abcbca" {
		t.Fatalf("Interleave order %v, %v", got, err)
	}
}

func TestProcCPU(t *testing.T) {
	if _, err := ProcCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
}

// TestChild runs a shell as a child: its lines, its stderr on failure, and
// its exit.
func TestChild(t *testing.T) {
	c, err := Start(context.Background(), "/bin/sh", 0, false, []string{"X=hello"}, "-c", `echo "$X"; echo oops >&2; exit 3`)
	if err != nil {
		t.Fatal(err)
	}
	if l, err := c.Line(); err != nil || l != "hello" {
		t.Fatalf("Line = %q, %v", l, err)
	}
	_, err = c.Line()
	if err == nil || !strings.Contains(err.Error(), "its stderr:\noops") || !strings.Contains(err.Error(), "exit status 3") {
		t.Fatalf("Line at the end: %v", err)
	}
	if err := c.Wait(time.Second); err == nil {
		t.Fatal("Wait: no exit error")
	}
}
