package httpdate

import "time"

// layout is net/http.TimeFormat, spelled out so the package does not link
// net/http.
const layout = "Mon, 02 Jan 2006 15:04:05 GMT"

const (
	dayNames   = "SunMonTueWedThuFriSat"
	monthNames = "JanFebMarAprMayJunJulAugSepOctNovDec"
)

// Append appends t, converted to UTC, in IMF-fixdate form
// ("Sun, 06 Nov 1994 08:49:37 GMT", 29 bytes) and returns the extended
// slice. The bytes are those of t.UTC().AppendFormat(dst, http.TimeFormat):
// the fraction of a second is dropped, and a year outside 0000–9999 is
// written as AppendFormat writes it. It allocates only when dst must grow.
func Append(dst []byte, t time.Time) []byte {
	sec := t.Unix()
	days := sec / 86400
	rem := sec % 86400
	if rem < 0 {
		rem += 86400
		days--
	}
	y, mon, d := civilFromDays(days)
	if y < 0 || y > 9999 {
		return t.UTC().AppendFormat(dst, layout)
	}
	wd := (days + 4) % 7 // 1970-01-01 was a Thursday
	if wd < 0 {
		wd += 7
	}
	h, mi, s := int(rem/3600), int(rem/60%60), int(rem%60)
	yy := int(y)
	w := dayNames[wd*3:]
	m := monthNames[(mon-1)*3:]
	return append(dst,
		w[0], w[1], w[2], ',', ' ',
		byte('0'+d/10), byte('0'+d%10), ' ',
		m[0], m[1], m[2], ' ',
		byte('0'+yy/1000), byte('0'+yy/100%10), byte('0'+yy/10%10), byte('0'+yy%10), ' ',
		byte('0'+h/10), byte('0'+h%10), ':',
		byte('0'+mi/10), byte('0'+mi%10), ':',
		byte('0'+s/10), byte('0'+s%10),
		' ', 'G', 'M', 'T')
}
