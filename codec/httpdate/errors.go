package httpdate

import (
	"errors"

	"github.com/netkit/netkit/codec"
)

// The kinds of malformed input. A *SyntaxError wraps exactly one of them, so
// errors.Is(err, ErrMonth) tells what was wrong.
var (
	ErrSyntax  = errors.New("httpdate: unexpected byte")
	ErrWeekday = errors.New("httpdate: bad day name")
	ErrDay     = errors.New("httpdate: bad day of month")
	ErrMonth   = errors.New("httpdate: bad month")
	ErrYear    = errors.New("httpdate: bad year")
	ErrTime    = errors.New("httpdate: bad time of day")
	ErrZone    = errors.New("httpdate: zone is not GMT")
	ErrMissing = errors.New("httpdate: cookie date lacks a field")
)

// SyntaxError reports malformed input: what was wrong (Kind, one of the
// Err variables above) and the byte offset in the input where the faulty
// field or byte starts. For ErrMissing the offset is the input's length.
type SyntaxError = codec.SyntaxError

// fail builds the error for a failure at offset off; the error is the only
// thing the package allocates, and only when input is malformed.
func fail(off int, kind error) error {
	return &SyntaxError{Offset: off, Kind: kind}
}
