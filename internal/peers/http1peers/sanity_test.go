package http1peers

import "testing"

// TestGeneratorValid checks that net/http accepts every valid request of
// the generator, so that the differential tests start from requests both
// parsers should take.
func TestGeneratorValid(t *testing.T) {
	g := newGen(1)
	for range 5000 {
		in := g.valid()
		if _, err := NetHTTPRead(in); err != nil {
			t.Fatalf("net/http rejects the valid %q: %v", in, err)
		}
	}
}
