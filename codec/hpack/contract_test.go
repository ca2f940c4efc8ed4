package hpack

import (
	"errors"
	"testing"

	"github.com/netkit/netkit/codec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// IsStreamError goes by the Kind: an hpack stream violation, not any
// FieldError (an EmitFunc may return another codec's) and not a
// connection error.
func TestIsStreamError(t *testing.T) {
	assert.True(t, IsStreamError(&FieldError{Kind: ErrNameUppercase, Field: "X-A", Index: 0}))
	assert.True(t, IsStreamError(&FieldError{Kind: ErrPseudoMissing, Field: ":path", Index: -1}))
	assert.False(t, IsStreamError(&SyntaxError{Offset: 3, Kind: ErrIndexRange}))
	assert.False(t, IsStreamError(&codec.FieldError{Kind: errors.New("other: bad field"), Field: "x", Index: -1}))
	assert.False(t, IsStreamError(errors.New("emit: stop")))
	assert.False(t, IsStreamError(nil))
}

// The zero Decoder and Encoder work with the defaults; a negative
// MaxTableSize means no dynamic table.
func TestZeroValues(t *testing.T) {
	var e Encoder
	var d Decoder
	block := e.AppendFields(nil, []Field{{Name: "x-a", Value: "1"}, {Name: "x-a", Value: "1"}})
	got, err := collect(&d, Headers, block)
	require.NoError(t, err)
	assert.Equal(t, []string{"x-a: 1", "x-a: 1"}, got)
	assert.Equal(t, 1, d.TableLen())
	assert.Equal(t, DefaultMaxTableSize, d.TableMaxSize())
	assert.Equal(t, config{maxList: DefaultMaxHeaderListSize, maxFields: DefaultMaxFields, maxString: DefaultMaxHeaderListSize}, d.limits())

	none := Encoder{MaxTableSize: -1}
	nd := Decoder{MaxTableSize: -1}
	block = none.AppendFields(nil, []Field{{Name: "x-a", Value: "1"}})
	_, err = collect(&nd, Headers, block)
	require.NoError(t, err)
	assert.Equal(t, 0, none.TableLen())
	assert.Equal(t, 0, nd.TableMaxSize())
	assert.Equal(t, 0, nd.TableLen())
}

// The deprecated constructors and options set the fields; a table size
// of 0 keeps its old meaning, no table.
func TestDeprecatedOptions(t *testing.T) {
	d := NewRequestDecoder(WithMaxTableSize(0), WithMaxFields(9), WithMaxHeaderListSize(100), WithMaxStringLength(50))
	assert.Equal(t, Request, d.Validate)
	assert.Equal(t, -1, d.MaxTableSize)
	assert.Equal(t, 9, d.MaxFields)
	assert.Equal(t, 100, d.MaxHeaderListSize)
	assert.Equal(t, 50, d.MaxStringLength)
	assert.Equal(t, Response, NewResponseDecoder().Validate)
	assert.Equal(t, NoValidation, NewDecoder(WithValidation(NoValidation)).Validate)
	assert.Equal(t, 256, NewEncoder(WithEncoderTableLimit(256)).MaxTableSize)
	assert.Equal(t, -1, NewEncoder(WithEncoderTableLimit(0)).MaxTableSize)
}
