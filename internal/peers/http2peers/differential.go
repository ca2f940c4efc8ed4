package http2peers

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	nk "github.com/netkit/netkit/codec/http2"
	"golang.org/x/net/http2"
)

// An Event is one thing a frame reader reported: a frame, in a few
// fields both libraries expose, or an error with its code and kind.
type Event struct {
	Frame string // type, stream, the type's flags and fields, payload
	Err   string // "conn CODE", "stream N CODE", or "" for a frame
	// Whole is false for an error x/net reported from a frame's header
	// before its payload had all arrived.
	Whole bool
	Off   int // where the frame starts in the input
	// Open is, for netkit's events, whether a header block is open after
	// it (its Block's state); not compared.
	Open bool
}

// same reports whether two events say the same.
func same(a, b Event) bool {
	return a.Frame == b.Frame && a.Err == b.Err && a.Whole == b.Whole && a.Off == b.Off
}

// maxFrame is the frame size both readers accept.
const maxFrame = nk.DefaultMaxFrameSize

// XNet reads p with x/net's Framer until the input ends or a connection
// error.
func XNet(p []byte) []Event {
	fr := http2.NewFramer(io.Discard, bytes.NewReader(p))
	fr.SetMaxReadFrameSize(maxFrame)
	var out []Event
	for off := 0; ; {
		// Where the frame read now ends, if p holds all of it.
		end := -1
		if len(p)-off >= nk.HeaderLen {
			end = off + nk.HeaderLen + int(nk.ParseFrameHeader(p[off:]).Length)
		}
		f, err := fr.ReadFrame()
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				if end >= 0 && end <= len(p) {
					// The frame was whole: x/net found it too short for
					// its fields, and reports only that.
					return append(out, Event{Err: "conn unexpected EOF", Whole: true, Off: off})
				}
				return out
			}
			var se http2.StreamError
			if errors.As(err, &se) {
				out = append(out, Event{Err: fmt.Sprintf("stream %d %v", se.StreamID, nk.ErrCode(se.Code)), Whole: true, Off: off})
				off = end
				continue
			}
			whole := end >= 0 && end <= len(p)
			var ce http2.ConnectionError
			if errors.As(err, &ce) {
				return append(out, Event{Err: "conn " + nk.ErrCode(ce).String(), Whole: whole, Off: off})
			}
			if errors.Is(err, http2.ErrFrameTooLarge) {
				return append(out, Event{Err: "conn " + nk.CodeFrameSize.String(), Whole: true, Off: off})
			}
			return append(out, Event{Err: "other " + err.Error(), Whole: whole, Off: off})
		}
		out = append(out, Event{Frame: describeXNet(f), Whole: true, Off: off})
		off = end
	}
}

func describeXNet(f http2.Frame) string {
	h := f.Header()
	s := fmt.Sprintf("%v %d", nk.FrameType(h.Type), h.StreamID)
	switch f := f.(type) {
	case *http2.DataFrame:
		return s + fmt.Sprintf(" es=%v %q", f.StreamEnded(), f.Data())
	case *http2.HeadersFrame:
		p := f.Priority
		return s + fmt.Sprintf(" es=%v eh=%v dep=%d/%v/%d %q", f.StreamEnded(), f.HeadersEnded(), p.StreamDep, p.Exclusive, p.Weight, f.HeaderBlockFragment())
	case *http2.PriorityFrame:
		return s + fmt.Sprintf(" dep=%d/%v/%d", f.StreamDep, f.Exclusive, f.Weight)
	case *http2.RSTStreamFrame:
		return s + " " + nk.ErrCode(f.ErrCode).String()
	case *http2.SettingsFrame:
		s += fmt.Sprintf(" ack=%v", f.IsAck())
		for i := range f.NumSettings() {
			st := f.Setting(i)
			s += fmt.Sprintf(" %d=%d", st.ID, st.Val)
		}
		return s
	case *http2.PushPromiseFrame:
		return s + fmt.Sprintf(" eh=%v promised=%d %q", f.HeadersEnded(), f.PromiseID, f.HeaderBlockFragment())
	case *http2.PingFrame:
		return s + fmt.Sprintf(" ack=%v %x", f.IsAck(), f.Data)
	case *http2.GoAwayFrame:
		return s + fmt.Sprintf(" last=%d %v %q", f.LastStreamID, nk.ErrCode(f.ErrCode), f.DebugData())
	case *http2.WindowUpdateFrame:
		return s + fmt.Sprintf(" inc=%d", f.Increment)
	case *http2.ContinuationFrame:
		return s + fmt.Sprintf(" eh=%v %q", f.HeadersEnded(), f.HeaderBlockFragment())
	case *http2.UnknownFrame:
		return s + fmt.Sprintf(" %q", f.Payload())
	}
	return s + " ?"
}

// Netkit reads p with netkit's Decoder and a Block until the input ends
// or a connection error.
func Netkit(p []byte) []Event {
	d := nk.Decoder{MaxFrameSize: maxFrame}
	var b nk.Block
	b.MaxSize = 1 << 30 // x/net's Framer has no cap of its own
	b.MaxContinuations = 1 << 30
	var f nk.Frame
	var out []Event
	for off := 0; off < len(p); {
		n, err := d.DecodeBytes(p[off:], &f)
		if errors.Is(err, nk.ErrShort) {
			return out
		}
		if v := nk.ViolationOf(err); err == nil || v != nil && v.Stream {
			// A frame with a stream error still has its place in a
			// header block (its header is whole in f).
			if _, _, berr := b.Next(&f); berr != nil {
				err = berr
			}
		}
		if err != nil {
			v := nk.ViolationOf(err)
			if v == nil {
				return append(out, Event{Err: "other " + err.Error(), Whole: true, Off: off, Open: b.Open()})
			}
			if !v.Stream {
				return append(out, Event{Err: "conn " + v.Code.String(), Whole: true, Off: off, Open: b.Open()})
			}
			out = append(out, Event{Err: fmt.Sprintf("stream %d %v", f.StreamID, v.Code), Whole: true, Off: off, Open: b.Open()})
			off += n
			continue
		}
		out = append(out, Event{Frame: describeNetkit(&f), Whole: true, Off: off, Open: b.Open()})
		off += n
	}
	return out
}

func describeNetkit(f *nk.Frame) string {
	s := fmt.Sprintf("%v %d", f.Type, f.StreamID)
	switch f.Type {
	case nk.FrameData:
		return s + fmt.Sprintf(" es=%v %q", f.EndStream(), f.Data)
	case nk.FrameHeaders:
		p := f.Priority
		return s + fmt.Sprintf(" es=%v eh=%v dep=%d/%v/%d %q", f.EndStream(), f.EndHeaders(), p.StreamDep, p.Exclusive, p.Weight, f.Data)
	case nk.FramePriority:
		return s + fmt.Sprintf(" dep=%d/%v/%d", f.Priority.StreamDep, f.Priority.Exclusive, f.Priority.Weight)
	case nk.FrameRSTStream:
		return s + " " + f.ErrCode.String()
	case nk.FrameSettings:
		s += fmt.Sprintf(" ack=%v", f.Ack())
		for i := range f.NumSettings() {
			st := f.Setting(i)
			s += fmt.Sprintf(" %d=%d", st.ID, st.Val)
		}
		return s
	case nk.FramePushPromise:
		return s + fmt.Sprintf(" eh=%v promised=%d %q", f.EndHeaders(), f.PromisedID, f.Data)
	case nk.FramePing:
		return s + fmt.Sprintf(" ack=%v %x", f.Ack(), f.PingData)
	case nk.FrameGoAway:
		return s + fmt.Sprintf(" last=%d %v %q", f.LastStreamID, f.ErrCode, f.Data)
	case nk.FrameWindowUpdate:
		return s + fmt.Sprintf(" inc=%d", f.Increment)
	case nk.FrameContinuation:
		return s + fmt.Sprintf(" eh=%v %q", f.EndHeaders(), f.Data)
	}
	return s + fmt.Sprintf(" %q", f.Data)
}
