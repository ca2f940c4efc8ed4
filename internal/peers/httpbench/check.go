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

// endpoint is what one path answers.
type endpoint struct {
	path, body, contentType string
}

var (
	plainEndpoint = endpoint{Path, Body, ContentType}
	jsonEndpoint  = endpoint{JSONPath, JSONBody, JSONType}
	delayEndpoint = endpoint{DelayPath, Body, ContentType}
)

// checkServer asks the server at addr for the plaintext endpoint, twice on
// one connection and then pipelined, then for the JSON endpoint the same
// way, then for the slow endpoint pipelined behind a plaintext request,
// and returns an error unless every answer is right: 200, the endpoint's
// Content-Type and body, a Server header and a Date header that parses,
// the connection kept alive, and the slow answer not sooner than Delay.
func checkServer(addr string) error {
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(5 * time.Second))
	br := bufio.NewReader(c)
	get := func(e endpoint) string { return "GET " + e.path + " HTTP/1.1\r\nHost: " + addr + "\r\n\r\n" }
	for _, e := range []endpoint{plainEndpoint, jsonEndpoint} {
		for i, n := range []int{1, 1, 16} {
			if _, err := io.WriteString(c, strings.Repeat(get(e), n)); err != nil {
				return err
			}
			for j := range n {
				if err := checkResponse(br, e); err != nil {
					return fmt.Errorf("%s: write %d, response %d of %d: %w", e.path, i+1, j+1, n, err)
				}
			}
		}
	}
	start := time.Now()
	if _, err := io.WriteString(c, get(delayEndpoint)+get(plainEndpoint)); err != nil {
		return err
	}
	for _, e := range []endpoint{delayEndpoint, plainEndpoint} {
		if err := checkResponse(br, e); err != nil {
			return fmt.Errorf("%s behind %s: %w", e.path, delayEndpoint.path, err)
		}
	}
	if took := time.Since(start); took < Delay {
		return fmt.Errorf("%s answered in %v, sooner than its %v", delayEndpoint.path, took, Delay)
	}
	return nil
}

func checkResponse(br *bufio.Reader, e endpoint) error {
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
	if string(body) != e.body {
		problems = append(problems, fmt.Sprintf("body %q, want %q", body, e.body))
	}
	if ct := resp.Header.Get("Content-Type"); ct != e.contentType && !strings.HasPrefix(ct, e.contentType+";") {
		problems = append(problems, fmt.Sprintf("Content-Type %q, want %q", ct, e.contentType))
	}
	if resp.Header.Get("Server") == "" {
		problems = append(problems, "no Server header")
	}
	if d := resp.Header.Get("Date"); d == "" {
		problems = append(problems, "no Date header")
	} else if _, err := http.ParseTime(d); err != nil {
		problems = append(problems, fmt.Sprintf("Date %q does not parse: %v", d, err))
	}
	if resp.ContentLength != int64(len(e.body)) {
		problems = append(problems, fmt.Sprintf("Content-Length %d, want %d", resp.ContentLength, len(e.body)))
	}
	if resp.Close {
		problems = append(problems, "the server closes the connection")
	}
	if len(problems) > 0 {
		return fmt.Errorf("wrong answer: %s", strings.Join(problems, "; "))
	}
	return nil
}
