package httpserver_test

import (
	"bufio"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/buf/buftest"
	"github.com/netkit/netkit/codec/http1"
	"github.com/netkit/netkit/eventloop"
	"github.com/netkit/netkit/eventloop/httpserver"
)

// upper is the protocol the tests upgrade to: it echoes bytes upper-cased.
type upper struct{}

func (upper) OnRead(x *eventloop.Context, msg any) {
	in := msg.(*buf.Composite)
	p := make([]byte, in.Len())
	in.Read(p)
	x.Write([]byte(strings.ToUpper(string(p))))
	x.Flush()
}

func upgrading(w *http1.ResponseWriter, req *http1.Request) {
	if string(req.Path) != "/upper" {
		plaintext(w, req)
		return
	}
	h := http1.ResponseHeader{Headers: []http1.Header{
		{Name: []byte("Upgrade"), Value: []byte("upper")},
		{Name: []byte("Connection"), Value: []byte("upgrade")},
	}}
	if err := httpserver.Upgrade(w, &h, func(p *eventloop.Pipeline) { p.AddLast("upper", upper{}) }); err != nil {
		w.Respond(&http1.ResponseHeader{Status: 400}, []byte(err.Error()))
	}
}

// After a pipelined request and the upgrade request, the client gets the
// first response, the 101, and then speaks the new protocol: the bytes it
// sent right after the request (in the same packet) are the protocol's
// first.
func TestUpgrade(t *testing.T) {
	buftest.CheckLeaks(t)
	_, addr := start(t, upgrading)
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /echo/first HTTP/1.1\r\nHost: x\r\n\r\nGET /upper HTTP/1.1\r\nHost: x\r\nUpgrade: upper\r\nConnection: upgrade\r\n\r\nhello")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	requireAnswer(t, br, 200, "/echo/first")
	resp, err := http.ReadResponse(br, nil)
	require.NoError(t, err)
	require.Equal(t, 101, resp.StatusCode)
	require.Equal(t, "upper", resp.Header.Get("Upgrade"))
	p := make([]byte, 5)
	_, err = io.ReadFull(br, p)
	require.NoError(t, err)
	require.Equal(t, "HELLO", string(p))
	_, err = io.WriteString(c, "get / http/1.1\r\n\r\n") // no longer HTTP
	require.NoError(t, err)
	p = make([]byte, 18)
	_, err = io.ReadFull(br, p)
	require.NoError(t, err)
	require.Equal(t, "GET / HTTP/1.1\r\n\r\n", string(p))
}

// An HTTP/1.0 request cannot be upgraded (no 101 in 1.0), nor a request
// behind a detached one still awaited; the Handler answers instead.
func TestUpgradeRefused(t *testing.T) {
	buftest.CheckLeaks(t)
	got := make(chan *httpserver.Detached, 1)
	_, addr := start(t, detachOn("/later", got, upgrading))
	c := dial(t, addr)
	_, err := io.WriteString(c, "GET /upper HTTP/1.0\r\nConnection: keep-alive\r\nUpgrade: upper\r\n\r\n")
	require.NoError(t, err)
	br := bufio.NewReader(c)
	requireAnswer(t, br, 400, "httpserver: Upgrade of an HTTP/1.0 request")

	c = dial(t, addr)
	_, err = io.WriteString(c, "GET /later HTTP/1.1\r\nHost: x\r\n\r\nGET /upper HTTP/1.1\r\nHost: x\r\nUpgrade: upper\r\nConnection: upgrade\r\n\r\n")
	require.NoError(t, err)
	d := <-got
	h := plainHeader
	require.NoError(t, d.Respond(&h, []byte("later")))
	br = bufio.NewReader(c)
	requireAnswer(t, br, 200, "later")
	requireAnswer(t, br, 400, httpserver.ErrUpgradeBusy.Error())
}
