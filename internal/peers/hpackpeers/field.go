package hpackpeers

import (
	"fmt"
	"strings"
)

// A Field is one header field as the comparisons see it, whatever the
// implementation's own type.
type Field struct {
	Name, Value string
	// Sensitive is true for a field sent or received as a never-indexed
	// literal (RFC 7541 §6.2.3).
	Sensitive bool
}

// Size returns the field's size in a dynamic table (RFC 7541 §4.1).
func (f Field) Size() int { return len(f.Name) + len(f.Value) + 32 }

func (f Field) String() string {
	s := fmt.Sprintf("%q: %q", short(f.Name), short(f.Value))
	if f.Sensitive {
		s += " (sensitive)"
	}
	return s
}

// short abbreviates a long string for messages.
func short(s string) string {
	if len(s) <= 48 {
		return s
	}
	return fmt.Sprintf("%s…(%d bytes)", s[:40], len(s))
}

// ListString formats a header list for messages, one field a line.
func ListString(l []Field) string {
	var b strings.Builder
	for i, f := range l {
		fmt.Fprintf(&b, "\n\t%d %v", i, f)
	}
	if len(l) == 0 {
		b.WriteString(" (empty)")
	}
	return b.String()
}

// Diff returns a description of the first difference between header
// lists a and b, or "" when they are equal.
func Diff(a, b []Field) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("field %d: %v vs %v", i, a[i], b[i])
		}
	}
	if len(a) != len(b) {
		return fmt.Sprintf("%d fields vs %d", len(a), len(b))
	}
	return ""
}

// TableSize returns the RFC 7541 §4.1 size of a dynamic table's entries.
func TableSize(entries []Field) int {
	n := 0
	for _, f := range entries {
		n += f.Size()
	}
	return n
}
