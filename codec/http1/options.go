package http1

// Default limits. Each is checked while the bytes arrive, so a request
// over a limit is refused as soon as it passes it, never buffered whole.
const (
	DefaultMaxRequestLine = 8 << 10  // bytes, CRLF included; over it: 414
	DefaultMaxHeaderBytes = 16 << 10 // bytes of the header section after the request line; over it: 431
	DefaultMaxHeaders     = 100      // header fields; over it: 431
	DefaultMaxBodySize    = 4 << 20  // bytes of body, de-chunked, plus chunk framing for chunked ones; over it: 413
)

type config struct {
	maxRequestLine int
	maxHeaderBytes int
	maxHeaders     int
	maxBodySize    int64
	allowBareLF    bool
}

func defaultConfig() config {
	return config{
		maxRequestLine: DefaultMaxRequestLine,
		maxHeaderBytes: DefaultMaxHeaderBytes,
		maxHeaders:     DefaultMaxHeaders,
		maxBodySize:    DefaultMaxBodySize,
	}
}

// An Option changes a limit or rule of a Decoder.
type Option func(*config)

// WithMaxRequestLine sets the longest request line accepted, in bytes
// with its CRLF (default DefaultMaxRequestLine); a longer one is
// ErrURITooLong.
func WithMaxRequestLine(n int) Option { return func(c *config) { c.maxRequestLine = n } }

// WithMaxHeaderBytes sets the largest header section accepted, in bytes
// from after the request line to the empty line included (default
// DefaultMaxHeaderBytes); a larger one is ErrHeaderTooLarge. It bounds
// trailer sections too.
func WithMaxHeaderBytes(n int) Option { return func(c *config) { c.maxHeaderBytes = n } }

// WithMaxHeaders sets the most header fields accepted (default
// DefaultMaxHeaders); more is ErrTooManyHeaders. It bounds trailer fields
// too.
func WithMaxHeaders(n int) Option { return func(c *config) { c.maxHeaders = n } }

// WithMaxBodySize sets the largest body accepted (default
// DefaultMaxBodySize); a larger one is ErrBodyTooLarge, refused from the
// Content-Length or as soon as the chunks pass it.
func WithMaxBodySize(n int64) Option { return func(c *config) { c.maxBodySize = n } }

// WithAllowBareLF accepts lines ended by LF alone (RFC 9112 §2.2 lets a
// recipient do so) in the request line, header and trailer sections and
// chunk framing. Off by default: a bare LF is ErrBareLF, since parsers
// that disagree on line ends are how requests are smuggled.
func WithAllowBareLF(allow bool) Option { return func(c *config) { c.allowBareLF = allow } }
