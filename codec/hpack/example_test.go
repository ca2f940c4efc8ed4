package hpack_test

import (
	"errors"
	"fmt"

	"github.com/netkit/netkit/codec/hpack"
)

// A client encodes a request; a server decodes and validates it. The
// second time the same request costs one byte per field.
func Example() {
	enc := new(hpack.Encoder)
	dec := &hpack.Decoder{Validate: hpack.Request}
	fields := []hpack.Field{
		{Name: ":method", Value: "GET"},
		{Name: ":scheme", Value: "https"},
		{Name: ":path", Value: "/"},
		{Name: ":authority", Value: "example.com"},
		{Name: "authorization", Value: "Bearer t0ken", Sensitive: true},
	}
	for range 2 {
		block := enc.AppendFields(nil, fields)
		fmt.Println(len(block), "bytes:")
		err := dec.DecodeBlock(block, func(name, value []byte, sensitive bool) error {
			fmt.Printf("  %s: %s (sensitive %v)\n", name, value, sensitive)
			return nil
		})
		if err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// 25 bytes:
	//   :method: GET (sensitive false)
	//   :scheme: https (sensitive false)
	//   :path: / (sensitive false)
	//   :authority: example.com (sensitive false)
	//   authorization: Bearer t0ken (sensitive true)
	// 16 bytes:
	//   :method: GET (sensitive false)
	//   :scheme: https (sensitive false)
	//   :path: / (sensitive false)
	//   :authority: example.com (sensitive false)
	//   authorization: Bearer t0ken (sensitive true)
}

// A malformed request is a stream error, a *FieldError naming the field
// and its position: the connection and its dynamic table go on, the
// stream is reset.
func ExampleFieldError() {
	enc := new(hpack.Encoder)
	dec := &hpack.Decoder{Validate: hpack.Request}
	block := enc.AppendFields(nil, []hpack.Field{
		{Name: ":method", Value: "GET"},
		{Name: ":path", Value: "/"},
		{Name: "connection", Value: "keep-alive"},
	})
	err := dec.DecodeBlock(block, nil)
	fmt.Println(err)
	fmt.Println("stream error:", hpack.IsStreamError(err), errors.Is(err, hpack.ErrConnectionSpecific))
	var fe *hpack.FieldError
	if errors.As(err, &fe) {
		fmt.Printf("field %q at %d\n", fe.Field, fe.Index)
	}
	// Output:
	// hpack: connection-specific field (RFC 9113 §8.2.2): connection[2]
	// stream error: true true
	// field "connection" at 2
}

// A block split across HEADERS and CONTINUATION frames is decoded frame by
// frame.
func ExampleDecoder_DecodeFragment() {
	block := new(hpack.Encoder).AppendFields(nil, []hpack.Field{
		{Name: ":status", Value: "200"},
		{Name: "content-type", Value: "text/plain"},
	})
	dec := &hpack.Decoder{Validate: hpack.Response}
	emit := func(name, value []byte, _ bool) error {
		fmt.Printf("%s: %s\n", name, value)
		return nil
	}
	for i, frame := range [][]byte{block[:5], block[5:]} {
		if err := dec.DecodeFragment(hpack.Headers, frame, i == 1, emit); err != nil {
			fmt.Println(err)
		}
	}
	// Output:
	// :status: 200
	// content-type: text/plain
}

// The decoder's limits refuse an HPACK bomb after the list budget,
// keeping its dynamic table in step for the next block.
func ExampleDecoder_limits() {
	enc := new(hpack.Encoder)
	var fields []hpack.Field
	for range 100 {
		fields = append(fields, hpack.Field{Name: "x-big", Value: string(make([]byte, 1000))})
	}
	block := enc.AppendFields(nil, fields)
	dec := &hpack.Decoder{MaxHeaderListSize: 16 << 10}
	n := 0
	err := dec.DecodeBlock(block, func(_, _ []byte, _ bool) error { n++; return nil })
	fmt.Println(len(block), "byte block,", n, "fields emitted:", err)
	// Output:
	// 1108 byte block, 15 fields emitted: hpack: header list larger than the decoder's limit (name + value + 32 per field) (RFC 9113 §6.5.2): x-big[15]
}
