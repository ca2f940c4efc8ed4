package httpdate

import (
	"regexp"
	"strconv"
	"strings"
	"time"
)

// parseCookieSlow is RFC 6265 §5.1.1 written as directly as possible: the
// grammar's productions as regular expressions, the steps in order, and
// time.Date to build (and validate) the date.
var (
	slowTime  = regexp.MustCompile(`(?s)^([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2})(?:[^0-9].*)?$`)
	slowDay   = regexp.MustCompile(`(?s)^([0-9]{1,2})(?:[^0-9].*)?$`)
	slowYear  = regexp.MustCompile(`(?s)^([0-9]{2,4})(?:[^0-9].*)?$`)
	slowMonth = []string{"jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"}
)

func slowIsDelimiter(c byte) bool {
	return c == 0x09 || 0x20 <= c && c <= 0x2f || 0x3b <= c && c <= 0x40 ||
		0x5b <= c && c <= 0x60 || 0x7b <= c && c <= 0x7e
}

// slowTokens splits at delimiters byte by byte (a regexp would see UTF-8).
func slowTokens(s string) []string {
	var toks []string
	cur := []byte(nil)
	for i := 0; i < len(s); i++ {
		if slowIsDelimiter(s[i]) {
			if cur != nil {
				toks = append(toks, string(cur))
				cur = nil
			}
			continue
		}
		cur = append(cur, s[i])
	}
	if cur != nil {
		toks = append(toks, string(cur))
	}
	return toks
}

// asciiOnly replaces bytes ≥ 0x80 by 0x01 so the regexps, which read UTF-8,
// see one non-digit per byte.
func asciiOnly(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= 0x80 {
			return 1
		}
		return r
	}, s)
}

func parseCookieSlow(s string) (time.Time, bool) {
	var foundTime, foundDay, foundMonth, foundYear bool
	var h, mi, sec, day, mon, year int
	for _, tok := range slowTokens(s) {
		t := asciiOnly(tok)
		if !foundTime {
			if m := slowTime.FindStringSubmatch(t); m != nil {
				foundTime = true
				h, _ = strconv.Atoi(m[1])
				mi, _ = strconv.Atoi(m[2])
				sec, _ = strconv.Atoi(m[3])
				continue
			}
		}
		if !foundDay {
			if m := slowDay.FindStringSubmatch(t); m != nil {
				foundDay = true
				day, _ = strconv.Atoi(m[1])
				continue
			}
		}
		if !foundMonth && len(tok) >= 3 {
			found := false
			for i, name := range slowMonth {
				if strings.EqualFold(tok[:3], name) && isASCIILetters(tok[:3]) {
					mon, found = i+1, true
					break
				}
			}
			if found {
				foundMonth = true
				continue
			}
		}
		if !foundYear {
			if m := slowYear.FindStringSubmatch(t); m != nil {
				foundYear = true
				year, _ = strconv.Atoi(m[1])
				continue
			}
		}
	}
	if 70 <= year && year <= 99 {
		year += 1900
	} else if 0 <= year && year <= 69 {
		year += 2000
	}
	if !foundTime || !foundDay || !foundMonth || !foundYear ||
		day < 1 || day > 31 || year < 1601 || h > 23 || mi > 59 || sec > 59 {
		return time.Time{}, false
	}
	t := time.Date(year, time.Month(mon), day, h, mi, sec, 0, time.UTC)
	if t.Day() != day { // time.Date normalised a day the month lacks
		return time.Time{}, false
	}
	return t, true
}

// isASCIILetters guards strings.EqualFold, which also folds the Kelvin sign
// and the long s onto k and s.
func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i] | 0x20; c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
