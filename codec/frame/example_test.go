package frame_test

import (
	"fmt"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/frame"
)

// reads appends each string to in as a read would arrive.
func reads(in *buf.Composite, parts ...string) {
	for _, p := range parts {
		b := buf.Get(len(p))
		b.WriteString(p)
		in.Append(b)
	}
}

// Lines arrive cut anywhere; each Decode returns one line as a buffer the
// caller owns, or ErrShort until the rest has arrived.
func ExampleLine() {
	in := buf.NewComposite()
	defer in.Release()
	d := frame.Line{StripDelimiter: true}
	for _, read := range []string{"HELO exa", "mple.org\r\nMAIL FROM:<a@", "example.org>\r\n"} {
		reads(in, read)
		for {
			var line *buf.Buffer
			if err := d.Decode(in, &line); err != nil {
				break // frame.ErrShort: wait for the next read
			}
			fmt.Printf("%q\n", line.Bytes())
			line.Release()
		}
	}
	// Output:
	// "HELO example.org"
	// "MAIL FROM:<a@example.org>"
}

// A too-long line is dropped, reported once, and decoding goes on.
func ExampleLine_tooLong() {
	in := buf.NewComposite()
	defer in.Release()
	d := frame.Line{MaxFrameLength: 8, StripDelimiter: true}
	reads(in, "short\nmuch too long for the cap\nok\n")
	for {
		var line *buf.Buffer
		err := d.Decode(in, &line)
		if err == frame.ErrShort {
			break
		}
		if err != nil {
			fmt.Println(err)
			continue
		}
		fmt.Printf("%q\n", line.Bytes())
		line.Release()
	}
	// Output:
	// "short"
	// frame: frame too long at offset 6
	// "ok"
}

// A 2-byte length prefix that counts only the body; Strip drops the prefix.
// AppendLengthField writes prefixes the same configuration decodes.
func ExampleLengthField() {
	d := frame.LengthField{Size: 2, Strip: 2}
	var wire []byte
	for _, msg := range []string{"ping", "", "pong!"} {
		wire, _ = frame.AppendLengthField(wire, &d, len(msg))
		wire = append(wire, msg...)
	}
	in := buf.NewComposite()
	defer in.Release()
	reads(in, string(wire[:5]), string(wire[5:9]), string(wire[9:])) // cut mid-prefix and mid-body
	for {
		var f *buf.Buffer
		if err := d.Decode(in, &f); err != nil {
			break
		}
		fmt.Printf("%q\n", f.Bytes())
		f.Release()
	}
	// Output:
	// "ping"
	// ""
	// "pong!"
}

// Delimiters are matched in stream order; at the same start the first
// listed wins, so "\r\n" is taken whole before "\n" could match alone.
func ExampleNewDelimiter() {
	d := frame.NewDelimiter([]byte("\r\n"), []byte("\n"), []byte(";"))
	d.StripDelimiter = true
	in := buf.NewComposite()
	defer in.Release()
	reads(in, "a;b\r", "\nc\n")
	for {
		var f *buf.Buffer
		if err := d.Decode(in, &f); err != nil {
			break
		}
		fmt.Printf("%q ", f.Bytes())
		f.Release()
	}
	fmt.Println()
	// Output: "a" "b" "c"
}

// Next lends each frame until the next call, as bufio.Scanner does: no
// buffer to release.
func ExampleLine_Next() {
	in := buf.NewComposite()
	defer in.Release()
	var d frame.Line
	reads(in, "one\ntwo\nthr", "ee\n")
	for {
		line, err := d.Next(in)
		if err != nil {
			break
		}
		fmt.Printf("%q ", line)
	}
	fmt.Println()
	// Output: "one\n" "two\n" "three\n"
}

// Fixed-size records, whatever the reads.
func ExampleFixed() {
	in := buf.NewComposite()
	defer in.Release()
	d := frame.Fixed{Length: 3}
	reads(in, "abcd", "efghi")
	for {
		var f *buf.Buffer
		if err := d.Decode(in, &f); err != nil {
			break
		}
		fmt.Printf("%s ", f.Bytes())
		f.Release()
	}
	fmt.Println()
	// Output: abc def ghi
}
