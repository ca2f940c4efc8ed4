package hpack

import (
	"encoding/binary"

	"github.com/netkit/netkit/codec/internal/ascii"
)

// The pseudo-headers, one bit each.
const (
	pMethod uint8 = 1 << iota
	pScheme
	pAuthority
	pPath
	pProtocol
	pStatus
)

// validator checks one header list against RFC 9113 §8 as its fields
// arrive; end checks what the whole list must hold.
type validator struct {
	mode      Mode
	trailers  bool
	regular   bool  // a regular field has been seen
	seen      uint8 // pseudo-headers seen
	connect   bool  // :method is CONNECT
	webScheme bool  // :scheme is http or https
	emptyPath bool
}

// Character classes of field names (RFC 9110 §5.6.2 tchar, RFC 9113
// §8.2.1): 0 allowed, 1 an uppercase letter, 2 anything else. The tchar
// set is codec/internal/ascii's, shared with HTTP/1.1.
var nameClass = func() (t [256]uint8) {
	for c := range t {
		switch {
		case 'A' <= c && c <= 'Z':
			t[c] = 1
		case ascii.IsTokenByte(byte(c)):
			t[c] = 0
		default:
			t[c] = 2
		}
	}
	return
}()

// badValueByte marks the bytes a field value may not hold (RFC 9113
// §8.2.1): NUL, LF and CR.
var badValueByte = [256]bool{0: true, '\n': true, '\r': true}

// check validates one field; clean says its characters are known to be
// allowed (a static entry, or a dynamic one checked when added).
func (v *validator) check(name, value []byte, clean bool) *Violation {
	if len(name) == 0 {
		return ErrNameEmpty
	}
	if !clean {
		if bad := checkValue(value); bad != nil {
			return bad
		}
	}
	if name[0] == ':' {
		return v.pseudo(name, value)
	}
	v.regular = true
	if !clean {
		if bad := checkName(name); bad != nil {
			return bad
		}
	}
	switch string(name) {
	case "connection", "proxy-connection", "keep-alive", "transfer-encoding", "upgrade":
		return ErrConnectionSpecific
	case "te":
		if string(value) != "trailers" {
			return ErrTE
		}
	}
	return nil
}

// checkName checks a regular field's name characters.
func checkName(name []byte) *Violation {
	var class uint8
	for _, c := range name {
		class |= nameClass[c]
	}
	if class == 0 {
		return nil
	}
	for _, c := range name {
		if nameClass[c] == 2 {
			return ErrNameInvalid
		}
	}
	return ErrNameUppercase
}

// clean reports whether a field's characters are all allowed: the
// check a validating decoder records with a dynamic table entry.
func clean(name, value []byte) bool {
	if len(name) == 0 || checkValue(value) != nil {
		return false
	}
	return name[0] == ':' || checkName(name) == nil
}

func checkValue(value []byte) *Violation {
	if n := len(value); n > 0 {
		if c := value[0]; c == ' ' || c == '\t' {
			return ErrValueSpace
		}
		if c := value[n-1]; c == ' ' || c == '\t' {
			return ErrValueSpace
		}
	}
	// NUL, LF and CR are all below 0x0e: skip 8 bytes at a time while
	// none is, and look closer only at a word that has one (a tab, say).
	i := 0
	for ; i+8 <= len(value); i += 8 {
		x := binary.LittleEndian.Uint64(value[i:])
		if ascii.HasLess(x, 0x0e) != 0 {
			for _, c := range value[i : i+8] {
				if badValueByte[c] {
					return ErrValueInvalid
				}
			}
		}
	}
	for _, c := range value[i:] {
		if badValueByte[c] {
			return ErrValueInvalid
		}
	}
	return nil
}

func (v *validator) pseudo(name, value []byte) *Violation {
	var bit uint8
	switch string(name) {
	case ":method":
		bit = pMethod
	case ":scheme":
		bit = pScheme
	case ":authority":
		bit = pAuthority
	case ":path":
		bit = pPath
	case ":protocol":
		bit = pProtocol
	case ":status":
		bit = pStatus
	default:
		return ErrPseudoUnknown
	}
	switch {
	case v.trailers:
		return ErrPseudoInTrailers
	case v.regular:
		return ErrPseudoAfterRegular
	case (bit == pStatus) != (v.mode == Response):
		return ErrPseudoWrongKind
	case v.seen&bit != 0:
		return ErrPseudoDuplicate
	}
	v.seen |= bit
	switch bit {
	case pMethod:
		v.connect = string(value) == "CONNECT"
	case pScheme:
		v.webScheme = string(value) == "http" || string(value) == "https"
	case pPath:
		v.emptyPath = len(value) == 0
	case pStatus:
		if len(value) != 3 || !digit(value[0]) || !digit(value[1]) || !digit(value[2]) {
			return ErrStatusInvalid
		}
	}
	return nil
}

func digit(c byte) bool { return c-'0' < 10 }

// end checks the pseudo-headers a whole list must hold and returns the
// violation with the name it concerns.
func (v *validator) end() (*Violation, string) {
	switch {
	case v.trailers:
		return nil, ""
	case v.mode == Response:
		if v.seen&pStatus == 0 {
			return ErrPseudoMissing, ":status"
		}
		return nil, ""
	}
	if v.seen&pMethod == 0 {
		return ErrPseudoMissing, ":method"
	}
	if v.connect && v.seen&pProtocol == 0 {
		// A plain CONNECT names only the authority (RFC 9113 §8.5).
		switch {
		case v.seen&pAuthority == 0:
			return ErrConnectInvalid, ":authority"
		case v.seen&pScheme != 0:
			return ErrConnectInvalid, ":scheme"
		case v.seen&pPath != 0:
			return ErrConnectInvalid, ":path"
		}
		return nil, ""
	}
	if v.seen&pProtocol != 0 && !v.connect {
		// :protocol belongs to the extended CONNECT (RFC 8441 §4).
		return ErrConnectInvalid, ":protocol"
	}
	switch {
	case v.seen&pScheme == 0:
		return ErrPseudoMissing, ":scheme"
	case v.seen&pPath == 0:
		return ErrPseudoMissing, ":path"
	case v.emptyPath && v.webScheme:
		return ErrPathEmpty, ":path"
	}
	return nil, ""
}
