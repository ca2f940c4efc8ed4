package echobench

import (
	"strings"
	"testing"
	"time"
)

func quickFlood(addr string) LoadConfig {
	return LoadConfig{Addr: addr, Size: 64,
		Duration: 200 * time.Millisecond, Warmup: 20 * time.Millisecond, Grace: 500 * time.Millisecond}
}

// FloodPing against a correct echo server: pings counted, latencies
// ordered, flood bytes counted, window marked once each.
func TestFloodPingAgainstNetEcho(t *testing.T) {
	addr := startFaulty(t, echoNetConn)
	cfg := quickFlood(addr)
	var marks []string
	cfg.Mark = func(ev string) { marks = append(marks, ev) }
	res, err := FloodPing(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if res.RoundTrips == 0 || res.BytesPerSec <= 0 || res.P50us <= 0 || res.P50us > res.P99us {
		t.Fatalf("implausible result %+v", res)
	}
	if strings.Join(marks, ",") != "start,end" {
		t.Fatalf("marks %v, want start,end", marks)
	}
}

// A server that flips one byte of a connection's stream far into it fails
// the flood (or the ping) with a mismatch; one that drops a byte per read
// fails too, by mismatch or by the grace period, never with numbers.
func TestFloodPingDetectsBadServers(t *testing.T) {
	const at = 300 << 10
	flip := startFaulty(t, echoWith(func(total int, b []byte) []byte {
		if total <= at && at < total+len(b) {
			b[at-total] ^= 0x20
		}
		return b
	}))
	if _, err := FloodPing(quickFlood(flip)); err == nil || !strings.Contains(err.Error(), "mismatch") {
		t.Fatalf("flipping server: got %v, want a mismatch", err)
	}
	short := startFaulty(t, echoWith(func(_ int, b []byte) []byte { return b[:len(b)-1] }))
	if _, err := FloodPing(quickFlood(short)); err == nil {
		t.Fatal("short-changing server: no error")
	}
}
