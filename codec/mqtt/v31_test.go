package mqtt

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connect31 is an MQTT 3.1 CONNECT: "MQIsdp", level 3, clean session, keep
// alive 60, client id "abc".
const connect31 = "10 11 0006 4d5149736470 03 02 003c 0003 616263"

// TestV31 decodes MQTT 3.1 (protocol name "MQIsdp", level 3) by default,
// as mosquitto accepts it: the CONNECT and the packets after it, which have
// the 3.1.1 forms.
func TestV31(t *testing.T) {
	in := must(hexBytes(connect31))
	var d Decoder
	var p Packet
	n, err := d.DecodeBytes(in, &p)
	require.NoError(t, err)
	require.Equal(t, len(in), n)
	assert.Equal(t, TypeConnect, p.Type)
	assert.Equal(t, V31, p.Version)
	assert.Equal(t, V31, p.Connect.Version)
	assert.Equal(t, "MQIsdp", string(p.Connect.ProtocolName))
	assert.Equal(t, "abc", string(p.Connect.ClientID))
	assert.Equal(t, V31, d.Version)
	assert.Equal(t, "3.1", V31.String())

	pub := must(hexBytes("33 09 0003 612f62 1234 6869"))
	_, err = d.DecodeBytes(pub, &p)
	require.NoError(t, err)
	assert.Equal(t, V31, p.Version)
	assert.Equal(t, "a/b", string(p.Publish.Topic))

	// Stateless Decode accepts it too.
	_, err = DecodeBytes(in, 0, &p)
	require.NoError(t, err)
	assert.Equal(t, V31, p.Version)
}

// TestV31Refused: a Decoder with RefuseV31 refuses an MQTT 3.1 CONNECT as
// an unsupported version (return code 1).
func TestV31Refused(t *testing.T) {
	d := Decoder{RefuseV31: true}
	var p Packet
	_, err := d.DecodeBytes(must(hexBytes(connect31)), &p)
	require.ErrorIs(t, err, ErrVersion)
	code, ok := ReturnCodeOf(err)
	assert.True(t, ok)
	assert.Equal(t, RefusedProtocolVersion, code)
}

// TestV31Violations: the rules of an MQTT 3.1 CONNECT — the name and the
// level go together, and the client identifier is never empty.
func TestV31Violations(t *testing.T) {
	for _, c := range []struct {
		name, in string
		want     *Violation
		at       int
	}{
		{"MQIsdp level 4", "10 11 0006 4d5149736470 04 02 003c 0003 616263", ErrVersion, 10},
		{"MQIsdp level 5", "10 12 0006 4d5149736470 05 02 003c 00 0003 616263", ErrVersion, 10},
		{"MQTT level 3", "10 0f 0004 4d515454 03 02 003c 0003 616263", ErrVersion, 8},
		{"3.1 empty client id", "10 0e 0006 4d5149736470 03 02 003c 0000", ErrEmptyClientID, 14},
		{"3.1 password without user name", "10 14 0006 4d5149736470 03 42 003c 0003 616263 0001 61", ErrPasswordNoUser, 11},
	} {
		t.Run(c.name, func(t *testing.T) {
			var p Packet
			_, err := DecodeBytes(must(hexBytes(c.in)), 0, &p)
			require.ErrorIs(t, err, c.want)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, c.at, se.Offset)
		})
	}
}

// TestV31Encode: the encoder writes MQTT 3.1 too, with its protocol name.
func TestV31Encode(t *testing.T) {
	e := Encoder{Version: V31}
	b, err := e.AppendConnect(nil, &Connect{Version: V31, CleanStart: true, KeepAlive: 60, ClientID: []byte("abc")})
	require.NoError(t, err)
	assert.Equal(t, must(hexBytes(connect31)), b)
	_, err = e.AppendConnect(nil, &Connect{Version: V31, CleanStart: true, ClientID: []byte("abc"), ProtocolName: []byte("MQTT")})
	assert.ErrorIs(t, err, ErrVersion)
	_, err = e.AppendConnect(nil, &Connect{Version: V31, CleanStart: true})
	assert.ErrorIs(t, err, ErrEmptyClientID)
	for _, p := range samples(V31) {
		b := mustEncode(t, &p)
		var q Packet
		d := Decoder{Version: V31}
		if p.Type == TypeConnect {
			d.Version = 0
		}
		_, err := d.DecodeBytes(b, &q)
		require.NoError(t, err, "%v", p.Type)
		assert.Equal(t, V31, q.Version, "%v", p.Type)
		assert.Equal(t, b, mustEncode(t, &q), "%v", p.Type)
	}
}

// TestReturnCode maps refusals to the CONNACK return codes of MQTT 3.1.1
// (and 3.1), and says when there is none (close without a CONNACK).
func TestReturnCode(t *testing.T) {
	for _, c := range []struct {
		err  error
		code ReasonCode
		ok   bool
	}{
		{nil, Accepted, true},
		{ErrVersion, RefusedProtocolVersion, true},
		{&SyntaxError{Offset: 2, Kind: ErrProtocolName}, RefusedProtocolVersion, true},
		{fmt.Errorf("wrapped: %w", &SyntaxError{Kind: ErrEmptyClientID}), RefusedIdentifierRejected, true},
		{ErrMalformed, 0, false},
		{ErrConnectReserved, 0, false},
		{ErrSecondConnect, 0, false},
		{ErrPacketTooLarge, 0, false},
		{errors.New("other"), 0, false},
	} {
		code, ok := ReturnCodeOf(c.err)
		assert.Equal(t, c.code, code, "%v", c.err)
		assert.Equal(t, c.ok, ok, "%v", c.err)
	}
	for _, c := range []struct {
		r    ReasonCode
		code ReasonCode
		ok   bool
	}{
		{Success, Accepted, true},
		{UnsupportedProtocolVersion, RefusedProtocolVersion, true},
		{ClientIDNotValid, RefusedIdentifierRejected, true},
		{ServerUnavailable, RefusedServerUnavailable, true},
		{ServerBusy, RefusedServerUnavailable, true},
		{UseAnotherServer, RefusedServerUnavailable, true},
		{ServerMoved, RefusedServerUnavailable, true},
		{ConnectionRateExceeded, RefusedServerUnavailable, true},
		{QuotaExceeded, RefusedServerUnavailable, true},
		{BadUsernameOrPassword, RefusedBadUsernameOrPassword, true},
		{NotAuthorized, RefusedNotAuthorized, true},
		{Banned, RefusedNotAuthorized, true},
		{BadAuthenticationMethod, RefusedNotAuthorized, true},
		{MalformedPacket, 0, false},
		{ProtocolError, 0, false},
		{UnspecifiedError, 0, false},
		{ImplementationSpecific, 0, false},
	} {
		code, ok := ReturnCode(c.r)
		assert.Equal(t, c.code, code, "%v", c.r)
		assert.Equal(t, c.ok, ok, "%v", c.r)
		if ok {
			assert.True(t, connackCodes3.has(code), "%v is a 3.1.1 CONNACK return code", code)
		}
	}
}
