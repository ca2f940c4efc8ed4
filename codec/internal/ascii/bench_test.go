package ascii

import (
	"strconv"
	"strings"
	"testing"
)

var sinkInt int

// BenchmarkIndexCTL scans field values of several lengths, clean to the
// end, with the word test and with the byte-at-a-time reference.
func BenchmarkIndexCTL(b *testing.B) {
	for _, n := range []int{8, 24, 64, 512} {
		v := []byte(strings.Repeat("text/html; charset=utf-8 ", n/25+1)[:n])
		b.Run("len="+strconv.Itoa(n)+"/impl=swar", func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = IndexCTL(v)
			}
		})
		b.Run("len="+strconv.Itoa(n)+"/impl=bytes", func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = slowIndexCTL(v)
			}
		})
	}
}

// BenchmarkUnreservedPrefix scans a run of unreserved bytes with the word
// test and with the class table alone.
func BenchmarkUnreservedPrefix(b *testing.B) {
	for _, n := range []int{16, 256} {
		s := []byte(strings.Repeat("abcXYZ019-._~", n/13+1)[:n])
		b.Run("len="+strconv.Itoa(n)+"/impl=swar", func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				sinkInt = UnreservedPrefix(s)
			}
		})
		b.Run("len="+strconv.Itoa(n)+"/impl=table", func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				i := 0
				for i < len(s) && Classes[s[i]]&Unreserved != 0 {
					i++
				}
				sinkInt = i
			}
		})
	}
}
