package http1

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/netkit/netkit/codec"
)

// appendResponseHeaderSlow is AppendResponseHeader written as directly as
// possible, for FuzzAppendResponseHeader: the rules in the order the doc
// states them, tokens by regular expression, names compared with
// strings.EqualFold, the head formatted with fmt. It returns the head or
// the error's kind, field and index.
func appendResponseHeaderSlow(h *ResponseHeader, date string) (string, *codec.FieldError) {
	fail := func(kind error, field string, index int) (string, *codec.FieldError) {
		return "", &codec.FieldError{Kind: kind, Field: field, Index: index}
	}
	status := h.Status
	if status == 0 {
		status = 200
	}
	if status < 100 || status > 999 {
		return fail(ErrResponseStatus, "Status", -1)
	}
	if h.ContentLength < -1 {
		return fail(ErrResponseContentLength, "ContentLength", -1)
	}
	final := status >= 200
	var sb strings.Builder
	reason := ""
	for _, r := range reasons {
		if r.code == status {
			reason = r.reason
		}
	}
	fmt.Fprintf(&sb, "HTTP/1.1 %d %s\r\n", status, reason)
	if !final {
		date = ""
	}
	write := func(name, value string) { fmt.Fprintf(&sb, "%s: %s\r\n", name, value) }
	if final {
		for _, f := range []struct{ field, name, value string }{
			{"date", "Date", date},
			{"Server", "Server", h.Server},
			{"ContentType", "Content-Type", h.ContentType},
		} {
			if f.value == "" {
				continue
			}
			if !slowValue(f.value) {
				return fail(ErrResponseFieldValue, f.field, -1)
			}
			write(f.name, f.value)
		}
		if status != 204 && status != 304 {
			if h.ContentLength == -1 {
				write("Transfer-Encoding", "chunked")
			} else {
				write("Content-Length", fmt.Sprint(h.ContentLength))
			}
		}
		if h.Close {
			write("Connection", "close")
		}
	}
	for i, f := range h.Headers {
		name, value := string(f.Name), string(f.Value)
		if !slowToken.MatchString(name) {
			return fail(ErrResponseFieldName, "Headers", i)
		}
		if !slowValue(value) {
			return fail(ErrResponseFieldValue, "Headers", i)
		}
		is := func(s string) bool { return strings.EqualFold(name, s) }
		switch {
		case is("Content-Length"), is("Transfer-Encoding"),
			is("Date") && date != "",
			is("Server") && final && h.Server != "",
			is("Content-Type") && final && h.ContentType != "",
			is("Connection") && final && h.Close:
			return fail(ErrResponseFraming, "Headers", i)
		case is("Connection"), is("Trailer"):
			for _, opt := range strings.Split(value, ",") {
				opt = strings.Trim(opt, " \t")
				if opt != "" && !slowToken.MatchString(opt) {
					return fail(ErrResponseFieldValue, "Headers", i)
				}
				banned := []string{"close"}
				if is("Trailer") {
					banned = []string{"Content-Length", "Transfer-Encoding", "Trailer", "Connection"}
				}
				for _, b := range banned {
					if strings.EqualFold(opt, b) {
						return fail(ErrResponseFraming, "Headers", i)
					}
				}
			}
		}
		write(name, value)
	}
	sb.WriteString("\r\n")
	return sb.String(), nil
}

var slowToken = regexp.MustCompile("^[-!#$%&'*+.^_`|~0-9A-Za-z]+$")

// slowValue: no controls but HTAB, no DEL, no whitespace at either end.
func slowValue(v string) bool {
	const banned = "\x00\x01\x02\x03\x04\x05\x06\x07\x08\x0a\x0b\x0c\x0d\x0e\x0f" +
		"\x10\x11\x12\x13\x14\x15\x16\x17\x18\x19\x1a\x1b\x1c\x1d\x1e\x1f\x7f"
	return !strings.ContainsAny(v, banned) && strings.Trim(v, " \t") == v
}
