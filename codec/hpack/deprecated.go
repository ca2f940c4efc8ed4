package hpack

// The constructors and options below configured Decoders and Encoders
// before their limits became exported fields whose zero value is the
// default (the contract of every netkit codec). They stay for one
// release.

// An Option changes a Decoder's limits or validation.
//
// Deprecated: set the Decoder's fields.
type Option func(*Decoder)

// WithMaxTableSize sets Decoder.MaxTableSize; 0 still means no dynamic
// table (the field spells it -1).
//
// Deprecated: set Decoder.MaxTableSize.
func WithMaxTableSize(n int) Option {
	return func(d *Decoder) { d.MaxTableSize = zeroAsNone(n) }
}

// WithMaxHeaderListSize sets Decoder.MaxHeaderListSize (0: the default).
//
// Deprecated: set Decoder.MaxHeaderListSize.
func WithMaxHeaderListSize(n int) Option {
	return func(d *Decoder) { d.MaxHeaderListSize = n }
}

// WithMaxFields sets Decoder.MaxFields (0: the default).
//
// Deprecated: set Decoder.MaxFields.
func WithMaxFields(n int) Option {
	return func(d *Decoder) { d.MaxFields = n }
}

// WithMaxStringLength sets Decoder.MaxStringLength (0: the default).
//
// Deprecated: set Decoder.MaxStringLength.
func WithMaxStringLength(n int) Option {
	return func(d *Decoder) { d.MaxStringLength = n }
}

// WithValidation sets Decoder.Validate.
//
// Deprecated: set Decoder.Validate.
func WithValidation(m Mode) Option {
	return func(d *Decoder) { d.Validate = m }
}

// NewDecoder returns a Decoder that validates nothing, with opts applied.
//
// Deprecated: the zero Decoder is ready to use: new(Decoder), or
// &Decoder{MaxFields: …}.
func NewDecoder(opts ...Option) *Decoder { return newDecoder(NoValidation, opts) }

// NewRequestDecoder returns a Decoder that validates requests, with opts
// applied.
//
// Deprecated: use &Decoder{Validate: Request}.
func NewRequestDecoder(opts ...Option) *Decoder { return newDecoder(Request, opts) }

// NewResponseDecoder returns a Decoder that validates responses, with
// opts applied.
//
// Deprecated: use &Decoder{Validate: Response}.
func NewResponseDecoder(opts ...Option) *Decoder { return newDecoder(Response, opts) }

func newDecoder(m Mode, opts []Option) *Decoder {
	d := &Decoder{Validate: m}
	for _, o := range opts {
		o(d)
	}
	return d
}

// An EncoderOption changes an Encoder's configuration.
//
// Deprecated: set the Encoder's fields.
type EncoderOption func(*Encoder)

// WithEncoderTableLimit sets Encoder.MaxTableSize; 0 still means no
// dynamic table (the field spells it -1).
//
// Deprecated: set Encoder.MaxTableSize.
func WithEncoderTableLimit(n int) EncoderOption {
	return func(e *Encoder) { e.MaxTableSize = zeroAsNone(n) }
}

// NewEncoder returns an Encoder with opts applied.
//
// Deprecated: the zero Encoder is ready to use: new(Encoder), or
// &Encoder{MaxTableSize: …}.
func NewEncoder(opts ...EncoderOption) *Encoder {
	e := new(Encoder)
	for _, o := range opts {
		o(e)
	}
	return e
}

// zeroAsNone maps an option's table size, where 0 meant no table, to the
// field's, where 0 means the default.
func zeroAsNone(n int) int {
	if n <= 0 {
		return -1
	}
	return n
}
