package browser

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// conn speaks the DevTools protocol over Chromium's --remote-debugging-pipe:
// each message, in either direction, is one JSON object followed by a NUL
// byte. Commands carry an id that their response echoes; events carry none.
// With flattened sessions (Target.attachToTarget with flatten: true) a
// command or event for a page carries that page's sessionId, so one pipe
// serves the browser and all its pages.
type conn struct {
	wmu sync.Mutex // serializes writes, so messages never interleave
	w   io.Writer

	mu       sync.Mutex
	nextID   int64
	pending  map[int64]chan message
	sessions map[string]func(method string, params json.RawMessage)
	err      error         // why the connection ended; set before done is closed
	done     chan struct{} // closed when the read loop ends
}

// message is any message read from the pipe: a response (ID set) or an event.
type message struct {
	ID        int64           `json:"id,omitempty"`
	SessionID string          `json:"sessionId,omitempty"`
	Method    string          `json:"method,omitempty"`
	Params    json.RawMessage `json:"params,omitempty"`
	Result    json.RawMessage `json:"result,omitempty"`
	Error     *protocolError  `json:"error,omitempty"`
}

// request is a command written to the pipe.
type request struct {
	ID        int64  `json:"id"`
	SessionID string `json:"sessionId,omitempty"`
	Method    string `json:"method"`
	Params    any    `json:"params,omitempty"`
}

// protocolError is the error object of a failed command's response.
type protocolError struct {
	Code    int64  `json:"code"`
	Message string `json:"message"`
	Data    string `json:"data,omitempty"`
}

func (e *protocolError) Error() string {
	if e.Data != "" {
		return fmt.Sprintf("%s (%d): %s", e.Message, e.Code, e.Data)
	}
	return fmt.Sprintf("%s (%d)", e.Message, e.Code)
}

// errClosed is the connection's error once the browser's end of the pipe is
// gone and no other cause is known.
var errClosed = errors.New("browser: connection to the browser closed")

func newConn(r io.Reader, w io.Writer) *conn {
	c := &conn{
		w:        w,
		pending:  make(map[int64]chan message),
		sessions: make(map[string]func(string, json.RawMessage)),
		done:     make(chan struct{}),
	}
	go c.readLoop(bufio.NewReaderSize(r, 64<<10))
	return c
}

// readLoop reads messages until the pipe ends, handing responses to their
// callers and events to their session's handler. Handlers run on this
// goroutine, in the order the browser sent the events, so an event sent
// before a response has been handled by the time the caller sees the
// response.
func (c *conn) readLoop(r *bufio.Reader) {
	var err error
	for {
		var data []byte
		data, err = r.ReadBytes(0)
		if err != nil {
			break
		}
		var m message
		if err = json.Unmarshal(data[:len(data)-1], &m); err != nil {
			err = fmt.Errorf("browser: bad message from the browser: %w", err)
			break
		}
		c.mu.Lock()
		if m.ID != 0 {
			ch := c.pending[m.ID]
			delete(c.pending, m.ID)
			c.mu.Unlock()
			if ch != nil {
				ch <- m // buffered: never blocks
			}
			continue
		}
		h := c.sessions[m.SessionID]
		c.mu.Unlock()
		if h != nil && m.Method != "" {
			h(m.Method, m.Params)
		}
	}
	if err == io.EOF {
		err = errClosed
	}
	c.mu.Lock()
	c.err = err
	c.pending = nil
	c.mu.Unlock()
	close(c.done)
}

// call sends method with params (nil for none) to the session (""
// for the browser itself) and waits for the response, decoding its result
// into result unless result is nil. It gives up when ctx is done or the
// connection ends.
func (c *conn) call(ctx context.Context, session, method string, params, result any) error {
	ch := make(chan message, 1)
	c.mu.Lock()
	if c.pending == nil {
		err := c.err
		c.mu.Unlock()
		return fmt.Errorf("browser: %s: %w", method, err)
	}
	c.nextID++
	id := c.nextID
	c.pending[id] = ch
	c.mu.Unlock()

	data, err := json.Marshal(request{ID: id, SessionID: session, Method: method, Params: params})
	if err == nil {
		c.wmu.Lock()
		_, err = c.w.Write(append(data, 0))
		c.wmu.Unlock()
	}
	if err != nil {
		c.forget(id)
		return fmt.Errorf("browser: %s: %w", method, err)
	}

	select {
	case m := <-ch:
		return m.decode(method, result)
	case <-ctx.Done():
		c.forget(id)
		return fmt.Errorf("browser: %s: %w", method, context.Cause(ctx))
	case <-c.done:
		select {
		case m := <-ch: // the response came just before the end
			return m.decode(method, result)
		default:
			return fmt.Errorf("browser: %s: %w", method, c.err)
		}
	}
}

// decode returns the error of the response m to method, or decodes its
// result into result unless result is nil.
func (m *message) decode(method string, result any) error {
	if m.Error != nil {
		return fmt.Errorf("browser: %s: %w", method, m.Error)
	}
	if result != nil {
		if err := json.Unmarshal(m.Result, result); err != nil {
			return fmt.Errorf("browser: %s: decoding the result: %w", method, err)
		}
	}
	return nil
}

func (c *conn) forget(id int64) {
	c.mu.Lock()
	if c.pending != nil {
		delete(c.pending, id)
	}
	c.mu.Unlock()
}

// handle routes the events of session to h, or stops routing them when h is
// nil. h runs on the read loop: it must not block or call c.
func (c *conn) handle(session string, h func(method string, params json.RawMessage)) {
	c.mu.Lock()
	if h == nil {
		delete(c.sessions, session)
	} else {
		c.sessions[session] = h
	}
	c.mu.Unlock()
}
