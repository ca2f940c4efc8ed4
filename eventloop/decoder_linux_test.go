package eventloop_test

import (
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec"
	"github.com/netkit/netkit/eventloop"
)

// errBadByte is the Kind of the syntax errors of wordDecoder.
var errBadByte = errors.New("word: bad byte")

// wordDecoder decodes space-ended words as strings: a codec that is not
// codec/frame, with a message type of its own. A '!' is a syntax error
// after which it skips the byte; a '?' one after which it skips nothing.
type wordDecoder struct{}

func (wordDecoder) Decode(in *buf.Composite, dst *string) error {
	n := in.Len()
	for i := 0; i < n; i++ {
		switch in.Span(i)[0] {
		case ' ':
			p, _ := in.Next(i + 1)
			*dst = string(p[:i])
			return nil
		case '!':
			in.Discard(i + 1)
			return &codec.SyntaxError{Offset: i, Kind: errBadByte}
		case '?':
			return &codec.SyntaxError{Offset: i, Kind: errBadByte}
		}
	}
	return codec.ErrShort
}

// wordApp answers each word with the word and a newline, and counts
// errors.
type wordApp struct{ errs *atomic.Int32 }

func (a wordApp) OnRead(x *eventloop.Context, msg any) {
	w := msg.(string)
	x.Write(buf.Wrap([]byte(w + "\n")))
}
func (a wordApp) OnReadComplete(x *eventloop.Context)     { x.Flush() }
func (a wordApp) OnError(x *eventloop.Context, err error) { a.errs.Add(1) }

// TestDecoderHandler: any codec's stream decoder runs as a handler, its
// messages fired as its own type; a syntax error that consumed input is
// reported and decoding goes on, one that consumed nothing closes the
// connection rather than spin.
func TestDecoderHandler(t *testing.T) {
	g := newGroup(t, eventloop.Config{Loops: 1})
	var errs atomic.Int32
	s := listen(t, g, "tcp", "127.0.0.1:0", eventloop.Initializer(func(c *eventloop.Conn) {
		c.Pipeline().AddLast("words", eventloop.NewDecoderHandler[string](wordDecoder{}))
		c.Pipeline().AddLast("app", wordApp{&errs})
	}))
	c, err := net.Dial("tcp", s.Addr().String())
	require.NoError(t, err)
	defer c.Close()
	for _, part := range []string{"he", "llo wor", "ld !ok ", "?never "} {
		_, err := c.Write([]byte(part))
		require.NoError(t, err)
		time.Sleep(5 * time.Millisecond)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, err := io.ReadAll(c)
	require.NoError(t, err, "the server closes the connection at the '?'")
	assert.Equal(t, "hello\nworld\nok\n", string(got))
	assert.EqualValues(t, 2, errs.Load(), "errors reported: the '!' and the '?'")
}
