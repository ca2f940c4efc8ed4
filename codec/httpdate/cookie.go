package httpdate

import "time"

// delimiter marks the bytes that separate the tokens of a cookie date
// (RFC 6265 §5.1.1: %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E).
var delimiter = func() (t [256]bool) {
	t['\t'] = true
	for _, r := range [][2]byte{{0x20, 0x2f}, {0x3b, 0x40}, {0x5b, 0x60}, {0x7b, 0x7e}} {
		for c := r[0]; c <= r[1]; c++ {
			t[c] = true
		}
	}
	return t
}()

// leadingDigits counts the digits at the start of tok, up to five.
func leadingDigits(tok []byte) int {
	n := 0
	for n < len(tok) && n < 5 && tok[n]-'0' <= 9 {
		n++
	}
	return n
}

// cookieTime matches hms-time ( non-digit *OCTET ): three fields of one or
// two digits separated by ':'.
func cookieTime(tok []byte) (h, m, s int, ok bool) {
	var f [3]int
	i := 0
	for k := range f {
		if k > 0 {
			if i >= len(tok) || tok[i] != ':' {
				return 0, 0, 0, false
			}
			i++
		}
		v, next, ok := num12(tok, i)
		if !ok {
			return 0, 0, 0, false
		}
		f[k], i = v, next
	}
	if digit(tok, i) {
		return 0, 0, 0, false
	}
	return f[0], f[1], f[2], true
}

// ParseCookie reads a cookie date with the algorithm of RFC 6265 §5.1.1, as
// browsers read the Expires attribute: the input is split into tokens at
// delimiters, and the first token that looks like a time (h:m:s), a day of
// the month (one or two digits), a month (a name's first three letters, any
// case) or a year (two to four digits) fills that field, in any order;
// anything else is ignored. Years 70–99 mean 1970–1999 and 0–69 mean
// 2000–2069. The date fails with ErrMissing when a field is absent, with
// ErrDay, ErrYear or ErrTime when a field is out of range (a year before
// 1601, a day the month does not have). The result is in UTC. It does not
// allocate unless it fails.
func ParseCookie(b []byte) (time.Time, error) {
	var (
		h, mi, s, day, mon, year = 0, 0, 0, 0, 0, 0
		timeAt, dayAt, yearAt    = -1, -1, -1
		haveMonth                bool
	)
	for i := 0; i < len(b); {
		for i < len(b) && delimiter[b[i]] {
			i++
		}
		start := i
		for i < len(b) && !delimiter[b[i]] {
			i++
		}
		tok := b[start:i]
		if len(tok) == 0 {
			break
		}
		if timeAt < 0 {
			if hh, mm, ss, ok := cookieTime(tok); ok {
				h, mi, s, timeAt = hh, mm, ss, start
				continue
			}
		}
		n := leadingDigits(tok)
		if dayAt < 0 && (n == 1 || n == 2) {
			day, _, _ = num12(tok, 0)
			dayAt = start
			continue
		}
		if !haveMonth {
			if m := month(tok, 0); m != 0 {
				mon, haveMonth = m, true
				continue
			}
		}
		if yearAt < 0 && n >= 2 && n <= 4 {
			for _, c := range tok[:n] {
				year = year*10 + int(c-'0')
			}
			yearAt = start
		}
	}
	if timeAt < 0 || dayAt < 0 || !haveMonth || yearAt < 0 {
		return time.Time{}, fail(len(b), ErrMissing)
	}
	switch {
	case year >= 70 && year <= 99:
		year += 1900
	case year <= 69:
		year += 2000
	}
	switch {
	case day < 1 || day > 31:
		return time.Time{}, fail(dayAt, ErrDay)
	case year < 1601:
		return time.Time{}, fail(yearAt, ErrYear)
	case h > 23 || mi > 59 || s > 59:
		return time.Time{}, fail(timeAt, ErrTime)
	case day > daysIn(mon, year):
		return time.Time{}, fail(dayAt, ErrDay)
	}
	return instant(year, mon, day, h, mi, s, 0), nil
}
