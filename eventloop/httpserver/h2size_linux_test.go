package httpserver

import (
	"reflect"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestH2ConnSize: an idle HTTP/2 connection's record stays in the 2 KiB
// size class; one byte more puts it in the next (2304 bytes), 2.5 MiB over
// 10,000 idle connections (httpbench h2, h2-idle10k).
func TestH2ConnSize(t *testing.T) {
	assert.LessOrEqual(t, reflect.TypeFor[h2conn]().Size(), uintptr(2048))
}
