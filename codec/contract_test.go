package codec_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/netkit/netkit/codec"
)

var errKind = errors.New("x: bad field")

// TestFieldError: the text names the field and its position, quotes a
// field with bytes a log must not receive raw (a name a peer sent), and
// unwraps to its kind.
func TestFieldError(t *testing.T) {
	for _, tc := range []struct {
		e    codec.FieldError
		want string
	}{
		{codec.FieldError{Kind: errKind, Field: "Status", Index: -1}, "x: bad field: Status"},
		{codec.FieldError{Kind: errKind, Field: "Headers", Index: 2}, "x: bad field: Headers[2]"},
		{codec.FieldError{Kind: errKind, Index: -1}, "x: bad field"},
		{codec.FieldError{Kind: errKind, Field: "x-a\r\nInjected: 1", Index: 0}, `x: bad field: "x-a\r\nInjected: 1"[0]`},
		{codec.FieldError{Kind: errKind, Field: "caf\xc3\xa9", Index: -1}, `x: bad field: "café"`},
	} {
		assert.Equal(t, tc.want, tc.e.Error())
		assert.ErrorIs(t, &tc.e, errKind)
	}
}

func TestRuleString(t *testing.T) {
	assert.Equal(t, "bad thing (RFC 1 §2)", (&codec.Rule{Ref: "RFC 1 §2", Msg: "bad thing"}).String())
	assert.Equal(t, "bad thing", (&codec.Rule{Msg: "bad thing"}).String())
}
