package http1peers

import (
	"fmt"
	"strings"
	"testing"
)

// A looser is a request netkit accepts and net/http rejects, against the
// goal that netkit refuse every request net/http refuses. Each
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

// looserRules is empty: the four rows the first differential runs found
// (an empty Transfer-Encoding element, whitespace before a chunk
// extension, a malformed escape in the path, an invalid authority in an
// absolute-form target) were fixed in codec/http1. A new one is a
// regression.
var looserRules = []looser{}

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
