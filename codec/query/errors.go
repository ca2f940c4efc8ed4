package query

import (
	"errors"

	"github.com/netkit/netkit/codec"
)

// Sentinel kinds of [SyntaxError]; test for them with errors.Is.
var (
	// ErrBadEscape reports a '%' that is not followed by two hexadecimal
	// digits.
	ErrBadEscape = errors.New("query: invalid escape")
	// ErrSemicolon reports an unescaped ';' in a parameter, which net/url
	// rejects (see [Values.SemicolonIsNormalChar]).
	ErrSemicolon = errors.New("query: invalid semicolon separator")
	// ErrTooManyParams reports a query with more parameters than
	// [Values.MaxParams] allows. The count is taken before anything is
	// decoded.
	ErrTooManyParams = errors.New("query: too many parameters")
)

// A SyntaxError reports malformed input: what (Kind, one of the package's
// sentinels) and where (Offset, in bytes from the start of the input given
// to the function that failed).
type SyntaxError = codec.SyntaxError
