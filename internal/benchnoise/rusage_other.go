//go:build !unix

package benchnoise

import "time"

func ownCPU() (time.Duration, error) { return 0, errNoRusage }
