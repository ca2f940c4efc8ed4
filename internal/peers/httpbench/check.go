package httpbench

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// checkServer asks the server at addr for the plaintext endpoint, twice on
// one connection and then pipelined, and returns an error unless every
// answer is right: 200, Content-Type text/plain, the body, a Server header
// and a Date header that parses, and the connection kept alive.
func checkServer(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	req := "GET " + Path + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n"
	br := bufio.NewReader(c)
	for i, n := range []int{1, 1, 16} {
		if _, err := io.WriteString(c, strings.Repeat(req, n)); err != nil {
			return err
		}
		for j := range n {
			if err := checkResponse(br); err != nil {
				return fmt.Errorf("write %d, response %d of %d: %w", i+1, j+1, n, err)
			}
		}
	}
	return nil
}

func checkResponse(br *bufio.Reader) error {
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		return err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return err
	}
	var problems []string
	if resp.StatusCode != http.StatusOK {
		problems = append(problems, fmt.Sprintf("status %d, want 200", resp.StatusCode))
	}
	if string(body) != Body {
		problems = append(problems, fmt.Sprintf("body %q, want %q", body, Body))
	}
	if ct := resp.Header.Get("Content-Type"); ct != ContentType && !strings.HasPrefix(ct, ContentType+";") {
		problems = append(problems, fmt.Sprintf("Content-Type %q, want %q", ct, ContentType))
	}
	if resp.Header.Get("Server") == "" {
		problems = append(problems, "no Server header")
	}
	if d := resp.Header.Get("Date"); d == "" {
		problems = append(problems, "no Date header")
	} else if _, err := http.ParseTime(d); err != nil {
		problems = append(problems, fmt.Sprintf("Date %q does not parse: %v", d, err))
	}
	if resp.ContentLength != int64(len(Body)) {
		problems = append(problems, fmt.Sprintf("Content-Length %d, want %d", resp.ContentLength, len(Body)))
	}
	if resp.Close {
		problems = append(problems, "the server closes the connection")
	}
	if len(problems) > 0 {
		return fmt.Errorf("wrong answer: %s", strings.Join(problems, "; "))
	}
	return nil
}
