package http1

import (
	"errors"
	"testing"

	"github.com/netkit/netkit/codec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestContractErrors checks the error shapes package codec asks for:
// ErrShort is codec.ErrShort, every violation is a codec.Rule with a
// reference and a status, and a refused response is a *codec.FieldError
// that StatusOf answers with its violation's 500.
func TestContractErrors(t *testing.T) {
	require.Same(t, codec.ErrShort, ErrShort)
	assert.Equal(t, 0, StatusOf(ErrShort))
	assert.Equal(t, 0, StatusOf(ErrContinue))
	assert.Equal(t, 0, StatusOf(nil))
	assert.Equal(t, 400, StatusOf(errors.New("other")))
	for _, v := range []*Violation{
		ErrRequestLine, ErrMethod, ErrTarget, ErrVersion, ErrVersionNotSupported, ErrURITooLong,
		ErrHeaderName, ErrHeaderValue, ErrSpaceBeforeColon, ErrObsFold, ErrBareLF, ErrHeaderTooLarge,
		ErrTooManyHeaders, ErrHost, ErrExpect, ErrContentLength, ErrDuplicateContentLength,
		ErrLengthAndChunked, ErrTransferEncoding, ErrUnsupportedCoding, ErrBodyTooLarge, ErrChunkSize,
		ErrChunkSizeOverflow, ErrChunkExtension, ErrChunkData, ErrTrailer, ErrResponseStatus,
		ErrResponseFieldName, ErrResponseFieldValue, ErrResponseFraming, ErrResponseContentLength,
		ErrResponseBody, ErrResponseState, ErrResponseAnswered,
	} {
		assert.NotEmpty(t, v.Ref, v.Msg)
		assert.NotEmpty(t, v.Msg, v.Ref)
		assert.Equal(t, "http1: "+v.Msg+" ("+v.Ref+")", v.Error())
		assert.Contains(t, []int{400, 413, 414, 417, 431, 500, 501, 505}, v.Status, v.Msg)
		assert.Equal(t, v.Status, StatusOf(&SyntaxError{Offset: 1, Kind: v}), v.Msg)
	}
	var fe error = &ResponseError{Kind: ErrResponseStatus, Field: "Status", Index: -1}
	var asField *codec.FieldError
	require.ErrorAs(t, fe, &asField, "ResponseError is codec.FieldError")
	assert.Equal(t, 500, StatusOf(fe))
	assert.ErrorIs(t, fe, ErrResponseStatus)
}

// TestDeprecatedOptions checks that NewDecoder and the With* options still
// set the fields they name, for the release they are kept.
func TestDeprecatedOptions(t *testing.T) {
	d := NewDecoder(WithMaxRequestLine(64), WithMaxHeaderBytes(128), WithMaxHeaders(3), WithMaxBodySize(10), WithAllowBareLF(true))
	assert.Equal(t, Decoder{MaxRequestLine: 64, MaxHeaderBytes: 128, MaxHeaders: 3, MaxBodySize: 10, AllowBareLF: true}, *d)
	var req Request
	in := []byte("GET / HTTP/1.1\r\nHost: a\r\n\r\n")
	n, err := d.Parse(&req, in)
	require.NoError(t, err)
	assert.Equal(t, len(in), n)
	n, err = ParseRequest(&req, in)
	require.NoError(t, err)
	assert.Equal(t, len(in), n)
}
