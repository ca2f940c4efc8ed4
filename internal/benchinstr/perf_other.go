//go:build !linux

package benchinstr

import (
	"context"
	"os/exec"
)

// perfEvent is a perf_event_open event; there is none outside Linux.
type perfEvent struct{}

var hwInstructions perfEvent

func perfAvailable() error { return ErrNoCounter }

type perfCounter struct{ event perfEvent }

func (perfCounter) Method() Method { return Perf }

func (perfCounter) Count(context.Context, *exec.Cmd) (Count, []byte, error) {
	return Count{}, nil, ErrNoCounter
}
