package codec

import "strconv"

// A SyntaxError reports malformed input: what was wrong (Kind, one of the
// sentinel errors of the codec that failed, named "pkg: …") and where
// (Offset, in bytes from the start of the input the failing call was
// given). Each codec package names it as its own SyntaxError (a type
// alias), so errors.As works with either name and errors.Is(err, kind)
// with the package's sentinels.
type SyntaxError struct {
	Offset int
	Kind   error
}

func (e *SyntaxError) Error() string {
	return e.Kind.Error() + " at offset " + strconv.Itoa(e.Offset)
}

// Unwrap returns Kind, for errors.Is.
func (e *SyntaxError) Unwrap() error { return e.Kind }
