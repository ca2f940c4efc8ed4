package http1

import "math"

// Default limits: what a Decoder whose limit field is 0 uses. Each is
// checked while the bytes arrive, so a request over a limit is refused as
// soon as it passes it, never buffered whole.
const (
	DefaultMaxRequestLine = 8 << 10  // bytes, CRLF included; over it: 414
	DefaultMaxHeaderBytes = 16 << 10 // bytes of the header section after the request line; over it: 431
	DefaultMaxHeaders     = 100      // header fields; over it: 431
	DefaultMaxBodySize    = 4 << 20  // bytes of body, de-chunked, plus chunk framing for chunked ones; over it: 413
	// DefaultMaxTrailerBytes is net/http's: its server reads a chunked
	// body's trailer section only if it fits its 4 KiB read buffer.
	DefaultMaxTrailerBytes = 4 << 10 // bytes of the trailer section, after the last chunk's line; over it: 431
)

// config is the limits and rules a parse runs with: a Decoder's fields
// with the defaults filled in and every limit brought into a range where
// no sum of offsets and limits can overflow.
type config struct {
	maxRequestLine int
	maxHeaderBytes int
	maxHeaders     int
	maxBodySize    int64
	maxTrailer     int
	allowBareLF    bool
}

// config returns the limits and rules d's fields ask for.
func (d *Decoder) config() config {
	c := config{
		maxRequestLine: DefaultMaxRequestLine,
		maxHeaderBytes: DefaultMaxHeaderBytes,
		maxHeaders:     DefaultMaxHeaders,
		maxBodySize:    DefaultMaxBodySize,
		maxTrailer:     DefaultMaxTrailerBytes,
		allowBareLF:    d.AllowBareLF,
	}
	if d.MaxRequestLine > 0 {
		c.maxRequestLine = min(d.MaxRequestLine, math.MaxInt32)
	}
	if d.MaxHeaderBytes > 0 {
		c.maxHeaderBytes = min(d.MaxHeaderBytes, math.MaxInt32)
	}
	if d.MaxHeaders > 0 {
		c.maxHeaders = min(d.MaxHeaders, math.MaxInt32)
	}
	if d.MaxBodySize > 0 {
		c.maxBodySize = min(d.MaxBodySize, 1<<62)
	}
	if d.MaxTrailerBytes > 0 {
		c.maxTrailer = min(d.MaxTrailerBytes, math.MaxInt32)
	}
	return c
}

// defaultCfg is the config of the zero Decoder, for ParseRequest.
var defaultCfg = new(Decoder).config()

// An Option changes a limit or rule of a Decoder made by NewDecoder.
//
// Deprecated: set the Decoder's fields (MaxRequestLine, MaxHeaderBytes,
// MaxHeaders, MaxBodySize, AllowBareLF) instead.
type Option func(*Decoder)

// WithMaxRequestLine sets Decoder.MaxRequestLine.
//
// Deprecated: set the field. Unlike before, 0 now means the default.
func WithMaxRequestLine(n int) Option { return func(d *Decoder) { d.MaxRequestLine = n } }

// WithMaxHeaderBytes sets Decoder.MaxHeaderBytes.
//
// Deprecated: set the field. Unlike before, 0 now means the default.
func WithMaxHeaderBytes(n int) Option { return func(d *Decoder) { d.MaxHeaderBytes = n } }

// WithMaxHeaders sets Decoder.MaxHeaders.
//
// Deprecated: set the field. Unlike before, 0 now means the default.
func WithMaxHeaders(n int) Option { return func(d *Decoder) { d.MaxHeaders = n } }

// WithMaxBodySize sets Decoder.MaxBodySize.
//
// Deprecated: set the field. Unlike before, 0 now means the default.
func WithMaxBodySize(n int64) Option { return func(d *Decoder) { d.MaxBodySize = n } }

// WithAllowBareLF sets Decoder.AllowBareLF.
//
// Deprecated: set the field.
func WithAllowBareLF(allow bool) Option { return func(d *Decoder) { d.AllowBareLF = allow } }
