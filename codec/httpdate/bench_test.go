package httpdate

import (
	"net/http"
	"testing"
	"time"
)

var sinkTime time.Time

func BenchmarkParse(b *testing.B) {
	for _, f := range []struct{ name, in string }{
		{"imf", "Sun, 06 Nov 1994 08:49:37 GMT"},
		{"rfc850", "Sunday, 06-Nov-94 08:49:37 GMT"},
		{"asctime", "Sun Nov  6 08:49:37 1994"},
	} {
		in := []byte(f.in)
		b.Run("format="+f.name+"/impl=netkit", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				t, err := Parse(in)
				if err != nil {
					b.Fatal(err)
				}
				sinkTime = t
			}
		})
		b.Run("format="+f.name+"/impl=nethttp", func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				// string(in) as a caller holding bytes must write it.
				t, err := http.ParseTime(string(in))
				if err != nil {
					b.Fatal(err)
				}
				sinkTime = t
			}
		})
	}
}

func BenchmarkParseCookie(b *testing.B) {
	in := []byte("Sun, 06 Nov 1994 08:49:37 GMT")
	b.Run("impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			t, err := ParseCookie(in)
			if err != nil {
				b.Fatal(err)
			}
			sinkTime = t
		}
	})
}

func BenchmarkAppend(b *testing.B) {
	tm := time.Date(1994, 11, 6, 8, 49, 37, 0, time.UTC)
	dst := make([]byte, 0, 64)
	b.Run("impl=netkit", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dst = Append(dst[:0], tm)
		}
	})
	b.Run("impl=time", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			dst = tm.UTC().AppendFormat(dst[:0], http.TimeFormat)
		}
	})
}
