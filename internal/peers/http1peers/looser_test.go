package http1peers

import (
	"fmt"
	"strings"
	"testing"
)

// A looser is a request netkit accepts and net/http rejects, against the
// goal of issue 16 that netkit refuse every request net/http refuses. Each
// row is a bug to fix in codec/http1 (or, if the lead decides, an
// exception to document): TestLooser fails while any row holds.
// nethttpErrs are parts of net/http's errors, by which compare recognises
// the row (and skips it, so that the differential tests look further).
type looser struct {
	rule        string
	nethttpErrs []string
	example     string
	why         string
}

var looserRules = []looser{
	{rule: "empty element in Transfer-Encoding", nethttpErrs: []string{"unsupported transfer encoding"},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked,\r\n\r\n3\r\nabc\r\n0\r\n\r\n",
		why:     "netkit skips empty list elements (RFC 9110 §5.6.1 says a recipient MUST accept them); net/http takes only a Transfer-Encoding that is \"chunked\" alone"},
	{rule: "whitespace before a chunk extension", nethttpErrs: []string{"invalid byte in chunk length"},
		example: "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3 ;a\r\nabc\r\n0\r\n\r\n",
		why:     "netkit takes BWS before ';' (RFC 9112 §7.1.1's chunk-ext allows it); net/http refuses any byte after the size but ';' (it takes trailing whitespace without an extension)"},
	{rule: "malformed percent-encoding in the path", nethttpErrs: []string{"invalid URL escape"},
		example: "GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n",
		why:     "netkit takes any '%' in the target; RFC 3986's pct-encoded is '%' and two hex digits (net/url refuses others in the path, not in the query)"},
	{rule: "invalid authority in an absolute-form target",
		nethttpErrs: []string{"invalid port", "missing ']' in host", "in host name", "invalid host", "invalid userinfo", "invalid IP-literal"},
		example:     "GET http://a:1:/ HTTP/1.1\r\nHost: a\r\n\r\n",
		why:         "netkit checks the scheme of an absolute-form target, not its authority; net/url refuses a port that is not digits, an unclosed '[', bytes outside its host set"},
}

// documentedLooser returns the row of looserRules whose net/http error is
// err's, or nil.
func documentedLooser(err error) *looser {
	for i := range looserRules {
		if looserRules[i].matches(err) {
			return &looserRules[i]
		}
	}
	return nil
}

func (r *looser) matches(err error) bool {
	for _, e := range r.nethttpErrs {
		if strings.Contains(err.Error(), e) {
			return true
		}
	}
	return false
}

// TestLooser fails for every row of looserRules whose example netkit still
// accepts and net/http still rejects: requests netkit must refuse.
func TestLooser(t *testing.T) {
	for _, r := range looserRules {
		_, nkErr := NetkitParse([]byte(r.example))
		_, nhErr := NetHTTPRead([]byte(r.example))
		switch {
		case nhErr == nil || !r.matches(nhErr):
			t.Errorf("%s: net/http says %v, the row %q", r.rule, nhErr, r.nethttpErrs)
		case nkErr == nil:
			t.Errorf("%s: netkit accepts %q, which net/http rejects (%v): %s", r.rule, r.example, nhErr, r.why)
		}
	}
}

// looserMarkdown renders looserRules as README.md's table.
func looserMarkdown() string {
	var b strings.Builder
	b.WriteString("| rule | example | net/http's error | why |\n|---|---|---|---|\n")
	for _, r := range looserRules {
		ex := "`" + strings.ReplaceAll(fmt.Sprintf("%q", r.example), "|", "\\|") + "`"
		errs := make([]string, len(r.nethttpErrs))
		for i, e := range r.nethttpErrs {
			errs[i] = fmt.Sprintf("%q", e)
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.rule, ex, strings.Join(errs, ", "), r.why)
	}
	return b.String()
}
