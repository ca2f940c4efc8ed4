package mqtt

import (
	"strings"
	"unicode/utf8"
)

// The slow references: the string and topic rules written the plainest way,
// rune by rune and level by level, for the fuzz targets to compare with.

func checkStringSlow(s []byte) *Violation {
	for len(s) > 0 {
		r, size := utf8.DecodeRune(s)
		if r == utf8.RuneError && size <= 1 {
			return ErrBadUTF8
		}
		s = s[size:]
	}
	return nil
}

// stringRuleSlow gives the violation checkString must report: ill-formed
// UTF-8 wins over U+0000 only when the ill-formed sequence comes first.
func stringRuleSlow(s []byte, topic bool) *Violation {
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRune(s[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			// From the first non-ASCII byte on, UTF-8 is checked first.
			return ErrBadUTF8
		case r == 0:
			return ErrNullChar
		case topic && (r == '+' || r == '#'):
			return ErrTopicWildcard
		case r >= 0x80:
			// checkTail: the rest must be valid UTF-8, then NUL and
			// wildcards anywhere in it.
			if checkStringSlow(s[i:]) != nil {
				return ErrBadUTF8
			}
			for _, r := range string(s[i:]) {
				if r == 0 {
					return ErrNullChar
				}
				if topic && (r == '+' || r == '#') {
					return ErrTopicWildcard
				}
			}
			return nil
		}
		i += size
	}
	return nil
}

// checkFilterSlow checks a topic filter level by level (§4.7.1, §4.8.2).
func checkFilterSlow(s []byte, v Version) (bool, *Violation) {
	if len(s) == 0 {
		return false, ErrTopicEmpty
	}
	if err := stringRuleSlow(s, false); err != nil {
		return false, err
	}
	levels := strings.Split(string(s), "/")
	for i, l := range levels {
		for _, c := range l { // the first misplaced wildcard is reported
			if c == '#' && (l != "#" || i != len(levels)-1) {
				return false, ErrFilterMultiWild
			}
			if c == '+' && l != "+" {
				return false, ErrFilterWild
			}
		}
	}
	if v != V5 || !strings.HasPrefix(string(s), "$share/") {
		return false, nil
	}
	if len(levels) < 3 || levels[1] == "" || strings.ContainsAny(levels[1], "+#") || strings.Join(levels[2:], "/") == "" {
		return true, ErrShareName
	}
	return true, nil
}
