package httpdate

import "time"

// The long day names, Sunday first; their first three letters are the short
// names.
var longDays = [7]string{"sunday", "monday", "tuesday", "wednesday", "thursday", "friday", "saturday"}

// key3 packs three bytes folded to lower case. A byte that is not an ASCII
// letter can never fold onto a lower-case letter, so a key equal to the key
// of a name proves the bytes were that name in some case.
func key3(b []byte, i int) uint32 {
	return uint32(b[i]|0x20)<<16 | uint32(b[i+1]|0x20)<<8 | uint32(b[i+2]|0x20)
}

const (
	kSun = 's'<<16 | 'u'<<8 | 'n'
	kMon = 'm'<<16 | 'o'<<8 | 'n'
	kTue = 't'<<16 | 'u'<<8 | 'e'
	kWed = 'w'<<16 | 'e'<<8 | 'd'
	kThu = 't'<<16 | 'h'<<8 | 'u'
	kFri = 'f'<<16 | 'r'<<8 | 'i'
	kSat = 's'<<16 | 'a'<<8 | 't'
)

// weekday returns 0 (Sunday) through 6 for the three letters at b[i:], or -1.
func weekday(b []byte, i int) int {
	if len(b)-i < 3 {
		return -1
	}
	switch key3(b, i) {
	case kSun:
		return 0
	case kMon:
		return 1
	case kTue:
		return 2
	case kWed:
		return 3
	case kThu:
		return 4
	case kFri:
		return 5
	case kSat:
		return 6
	}
	return -1
}

// month returns 1 through 12 for the three letters at b[i:], or 0.
func month(b []byte, i int) int {
	if len(b)-i < 3 {
		return 0
	}
	switch key3(b, i) {
	case 'j'<<16 | 'a'<<8 | 'n':
		return 1
	case 'f'<<16 | 'e'<<8 | 'b':
		return 2
	case 'm'<<16 | 'a'<<8 | 'r':
		return 3
	case 'a'<<16 | 'p'<<8 | 'r':
		return 4
	case 'm'<<16 | 'a'<<8 | 'y':
		return 5
	case 'j'<<16 | 'u'<<8 | 'n':
		return 6
	case 'j'<<16 | 'u'<<8 | 'l':
		return 7
	case 'a'<<16 | 'u'<<8 | 'g':
		return 8
	case 's'<<16 | 'e'<<8 | 'p':
		return 9
	case 'o'<<16 | 'c'<<8 | 't':
		return 10
	case 'n'<<16 | 'o'<<8 | 'v':
		return 11
	case 'd'<<16 | 'e'<<8 | 'c':
		return 12
	}
	return 0
}

func digit(b []byte, i int) bool { return i < len(b) && b[i]-'0' <= 9 }

// spaces skips the run of one or more spaces that time.Parse accepts where
// its layout has one space.
func spaces(b []byte, i int) (int, bool) {
	if i >= len(b) || b[i] != ' ' {
		return i, false
	}
	for i++; i < len(b) && b[i] == ' '; i++ {
	}
	return i, true
}

// num2 reads exactly two digits.
func num2(b []byte, i int) (int, bool) {
	if !digit(b, i) || !digit(b, i+1) {
		return 0, false
	}
	return int(b[i]-'0')*10 + int(b[i+1]-'0'), true
}

// num12 reads one or two digits and returns the index after them.
func num12(b []byte, i int) (int, int, bool) {
	if !digit(b, i) {
		return 0, i, false
	}
	if !digit(b, i+1) {
		return int(b[i] - '0'), i + 1, true
	}
	return int(b[i]-'0')*10 + int(b[i+1]-'0'), i + 2, true
}

// num4 reads exactly four digits.
func num4(b []byte, i int) (int, bool) {
	if len(b)-i < 4 {
		return 0, false
	}
	v := 0
	for _, c := range b[i : i+4] {
		if c-'0' > 9 {
			return 0, false
		}
		v = v*10 + int(c-'0')
	}
	return v, true
}

// clock reads "H:MM:SS" or "HH:MM:SS" with the optional fraction time.Parse
// takes after the seconds (a '.' or ',' and digits, of which the first nine
// count).
func clock(b []byte, i int) (h, m, s, ns, next int, err error) {
	start := i
	var ok bool
	if h, i, ok = num12(b, i); !ok || h > 23 || i >= len(b) || b[i] != ':' {
		return 0, 0, 0, 0, i, fail(start, ErrTime)
	}
	if m, ok = num2(b, i+1); !ok || m > 59 || i+3 >= len(b) || b[i+3] != ':' {
		return 0, 0, 0, 0, i, fail(start, ErrTime)
	}
	if s, ok = num2(b, i+4); !ok || s > 59 {
		return 0, 0, 0, 0, i, fail(start, ErrTime)
	}
	i += 6
	if i+1 < len(b) && (b[i] == '.' || b[i] == ',') && digit(b, i+1) {
		i++
		n := 0
		for ; digit(b, i); i++ {
			if n < 9 {
				ns = ns*10 + int(b[i]-'0')
				n++
			}
		}
		for ; n < 9; n++ {
			ns *= 10
		}
	}
	return h, m, s, ns, i, nil
}

// Parse reads an HTTP date in any of the three forms of RFC 9110 §5.6.7 and
// returns it in UTC. It accepts what net/http.ParseTime accepts (day and
// month names in any case, runs of spaces where one is expected, a fraction
// after the seconds, one-digit hours, the weekday unchecked against the
// date), except RFC 850 dates whose zone is neither GMT nor UTC, which fail
// with ErrZone. It does not allocate unless it fails. Malformed input yields
// a *SyntaxError.
func Parse(b []byte) (time.Time, error) {
	wd := weekday(b, 0)
	if wd < 0 {
		return time.Time{}, fail(0, ErrWeekday)
	}
	if len(b) > 3 {
		switch b[3] {
		case ',':
			return parseIMF(b)
		case ' ':
			return parseASCTime(b)
		}
	}
	name := longDays[wd]
	if len(b) < len(name) {
		return time.Time{}, fail(0, ErrWeekday)
	}
	for i := 3; i < len(name); i++ {
		if b[i]|0x20 != name[i] {
			return time.Time{}, fail(0, ErrWeekday)
		}
	}
	return parseRFC850(b, len(name))
}

// parseIMF reads "Sun, 06 Nov 1994 08:49:37 GMT"; b[3] is ','.
func parseIMF(b []byte) (time.Time, error) {
	i, ok := spaces(b, 4)
	if !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	day, ok := num2(b, i)
	if !ok || day == 0 {
		return time.Time{}, fail(i, ErrDay)
	}
	dayAt := i
	if i, ok = spaces(b, i+2); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	mon := month(b, i)
	if mon == 0 {
		return time.Time{}, fail(i, ErrMonth)
	}
	if i, ok = spaces(b, i+3); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	year, ok := num4(b, i)
	if !ok {
		return time.Time{}, fail(i, ErrYear)
	}
	if i, ok = spaces(b, i+4); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	h, m, s, ns, i, err := clock(b, i)
	if err != nil {
		return time.Time{}, err
	}
	if i, ok = spaces(b, i); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	if len(b)-i != 3 || b[i] != 'G' || b[i+1] != 'M' || b[i+2] != 'T' {
		return time.Time{}, fail(i, ErrZone)
	}
	if day > daysIn(mon, year) {
		return time.Time{}, fail(dayAt, ErrDay)
	}
	return instant(year, mon, day, h, m, s, ns), nil
}

// parseRFC850 reads "Sunday, 06-Nov-94 08:49:37 GMT"; the day name is b[:i].
func parseRFC850(b []byte, i int) (time.Time, error) {
	if i >= len(b) || b[i] != ',' {
		return time.Time{}, fail(i, ErrSyntax)
	}
	i, ok := spaces(b, i+1)
	if !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	day, ok := num2(b, i)
	if !ok || day == 0 {
		return time.Time{}, fail(i, ErrDay)
	}
	dayAt := i
	if i += 2; i >= len(b) || b[i] != '-' {
		return time.Time{}, fail(i, ErrSyntax)
	}
	i++
	mon := month(b, i)
	if mon == 0 {
		return time.Time{}, fail(i, ErrMonth)
	}
	if i += 3; i >= len(b) || b[i] != '-' {
		return time.Time{}, fail(i, ErrSyntax)
	}
	i++
	// Two characters read as time.Parse reads "06": two digits, or a sign
	// and one digit (so "-5" is 1995 there, and here).
	if len(b)-i < 2 || !digit(b, i+1) {
		return time.Time{}, fail(i, ErrYear)
	}
	year := int(b[i+1] - '0')
	switch c := b[i]; {
	case c-'0' <= 9:
		year += int(c-'0') * 10
	case c == '-':
		year = -year
	case c == '+':
	default:
		return time.Time{}, fail(i, ErrYear)
	}
	if year >= 69 {
		year += 1900
	} else {
		year += 2000
	}
	if i, ok = spaces(b, i+2); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	h, m, s, ns, i, err := clock(b, i)
	if err != nil {
		return time.Time{}, err
	}
	if i, ok = spaces(b, i); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	if len(b)-i != 3 || !(b[i] == 'G' && b[i+1] == 'M' && b[i+2] == 'T' || b[i] == 'U' && b[i+1] == 'T' && b[i+2] == 'C') {
		return time.Time{}, fail(i, ErrZone)
	}
	if day > daysIn(mon, year) {
		return time.Time{}, fail(dayAt, ErrDay)
	}
	return instant(year, mon, day, h, m, s, ns), nil
}

// parseASCTime reads "Sun Nov  6 08:49:37 1994"; b[3] is ' '.
func parseASCTime(b []byte) (time.Time, error) {
	i, _ := spaces(b, 3)
	mon := month(b, i)
	if mon == 0 {
		return time.Time{}, fail(i, ErrMonth)
	}
	i, ok := spaces(b, i+3)
	if !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	dayAt := i
	day, i, ok := num12(b, i)
	if !ok || day == 0 {
		return time.Time{}, fail(dayAt, ErrDay)
	}
	if i, ok = spaces(b, i); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	h, m, s, ns, i, err := clock(b, i)
	if err != nil {
		return time.Time{}, err
	}
	if i, ok = spaces(b, i); !ok {
		return time.Time{}, fail(i, ErrSyntax)
	}
	year, ok := num4(b, i)
	if !ok || len(b)-i != 4 {
		return time.Time{}, fail(i, ErrYear)
	}
	if day > daysIn(mon, year) {
		return time.Time{}, fail(dayAt, ErrDay)
	}
	return instant(year, mon, day, h, m, s, ns), nil
}
