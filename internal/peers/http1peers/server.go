package http1peers

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"sync"
	"time"
)

// ServerStatus sends p on a new connection to a net/http server running in
// this process (over net.Pipe) and returns the status of its first final
// (not 1xx) answer. The server's handler reads the body and answers 200,
// so a status other than 200 is the server's own refusal: the rules it
// checks after ReadRequest (Host, version, Expect, field names).
func ServerStatus(p []byte) (int, error) {
	l := server()
	c, s := net.Pipe()
	defer c.Close()
	l.conns <- s
	c.SetDeadline(time.Now().Add(5 * time.Second))
	go c.Write(p)
	br := bufio.NewReader(c)
	for {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			return 0, err
		}
		if resp.StatusCode >= 200 {
			return resp.StatusCode, nil
		}
	}
}

var (
	serverOnce sync.Once
	serverL    *pipeListener
)

func server() *pipeListener {
	serverOnce.Do(func() {
		serverL = &pipeListener{conns: make(chan net.Conn)}
		srv := &http.Server{
			Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				io.Copy(io.Discard, r.Body)
			}),
			ReadTimeout: 5 * time.Second,
			ErrorLog:    nil,
		}
		go srv.Serve(serverL)
	})
	return serverL
}

// A pipeListener hands the server the connections ServerStatus makes.
type pipeListener struct{ conns chan net.Conn }

func (l *pipeListener) Accept() (net.Conn, error) {
	c, ok := <-l.conns
	if !ok {
		return nil, errors.New("http1peers: listener closed")
	}
	return c, nil
}

func (l *pipeListener) Close() error   { return nil }
func (l *pipeListener) Addr() net.Addr { return pipeAddr{} }

type pipeAddr struct{}

func (pipeAddr) Network() string { return "pipe" }
func (pipeAddr) String() string  { return "pipe" }
