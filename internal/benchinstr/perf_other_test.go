//go:build !linux

package benchinstr

func softwarePerfCounter() (Counter, bool) { return nil, false }
