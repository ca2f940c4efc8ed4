package benchrun

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// splitBench splits a -bench pattern as the testing package does: into
// alternatives at each "|" and, in each, into one regexp per level of the
// benchmark name at each "/", neither inside brackets or parentheses nor
// escaped. "A/x=1|B" gives [[A x=1] [B]].
func splitBench(s string) [][]string {
	var alts [][]string
	var levels []string
	brackets, parens := 0, 0
	for i := 0; i < len(s); {
		switch s[i] {
		case '[':
			brackets++
		case ']':
			brackets = max(brackets-1, 0) // an unmatched ']' is legal
		case '(':
			if brackets == 0 {
				parens++
			}
		case ')':
			if brackets == 0 {
				parens--
			}
		case '\\':
			i++
		case '/', '|':
			if brackets == 0 && parens == 0 {
				levels = append(levels, s[:i])
				if s[i] == '|' {
					alts, levels = append(alts, levels), nil
				}
				s, i = s[i+1:], 0
				continue
			}
		}
		i++
	}
	return append(alts, append(levels, s))
}

// CheckBench reports whether bench is a valid -bench pattern: every level
// of every alternative must compile as a regexp, as the testing package
// requires.
func CheckBench(bench string) error {
	for _, alt := range splitBench(benchOrAll(bench)) {
		for _, level := range alt {
			if _, err := regexp.Compile(level); err != nil {
				return fmt.Errorf("invalid -bench %q: %w", bench, err)
			}
		}
	}
	return nil
}

// listPattern returns the -test.list pattern that selects the top-level
// benchmarks bench may run: the first level of each alternative.
func listPattern(bench string) string {
	var first []string
	for _, alt := range splitBench(benchOrAll(bench)) {
		first = append(first, "(?:"+alt[0]+")")
	}
	return strings.Join(first, "|")
}

// CheckCPU reports whether cpu is a valid -cpu list: comma-separated
// positive integers, as the testing package requires.
func CheckCPU(cpu string) error {
	for v := range strings.SplitSeq(cpu, ",") {
		v = strings.TrimSpace(v)
		if v == "" {
			continue
		}
		if n, err := strconv.Atoi(v); err != nil || n <= 0 {
			return fmt.Errorf("invalid -cpu %q: %q is not a positive integer", cpu, v)
		}
	}
	return nil
}

// CheckBenchtime reports whether d is a valid -benchtime: a positive
// duration or a positive count followed by "x", as the testing package
// requires. "" (the default) is valid.
func CheckBenchtime(d string) error {
	if d == "" {
		return nil
	}
	if n, ok := strings.CutSuffix(d, "x"); ok {
		if v, err := strconv.ParseInt(n, 10, 0); err != nil || v <= 0 {
			return fmt.Errorf("invalid -benchtime %q: want a positive count such as 100x", d)
		}
		return nil
	}
	if v, err := time.ParseDuration(d); err != nil || v <= 0 {
		return fmt.Errorf("invalid -benchtime %q: want a positive duration such as 1s, or a count such as 100x", d)
	}
	return nil
}
