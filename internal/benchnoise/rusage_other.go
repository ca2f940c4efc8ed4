//go:build !unix

package benchnoise

import (
	"errors"
	"time"
)

// errNoRusage is ownCPU's error where getrusage is not available.
var errNoRusage = errors.New("benchnoise: no getrusage here")

func ownCPU() (time.Duration, error) { return 0, errNoRusage }
