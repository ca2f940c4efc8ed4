package mqtt

import (
	"testing"

	"github.com/netkit/netkit/codec"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ErrShort is the contract's sentinel, and a Decoder is a stream decoder
// of the contract.
func TestContract(t *testing.T) {
	assert.Same(t, codec.ErrShort, ErrShort)
	var _ codec.StreamDecoder[Packet] = (*Decoder)(nil)
	assert.Equal(t, "MQTT-1.5.4-2", ErrNullChar.Ref)
	assert.Equal(t, "mqtt: U+0000 in a string [MQTT-1.5.4-2]", ErrNullChar.Error())
	assert.Equal(t, "mqtt: unknown property identifier (MQTT 5.0 §2.2.2.2)", ErrUnknownProperty.Error())
}

// An encoder names the field it refuses, and its position in a list.
func TestEncoderFieldErrors(t *testing.T) {
	e := Encoder{Version: V5}
	dst := []byte("prefix")
	out, err := e.AppendSubscribe(dst, &Subscribe{PacketID: 1, Subscriptions: []Subscription{
		{Filter: []byte("a/#")}, {Filter: []byte("a/#/b")},
	}})
	assert.Equal(t, dst, out)
	var fe *FieldError
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, FieldError{Kind: ErrFilterMultiWild, Field: "topic filter", Index: 1}, *fe)
	assert.ErrorIs(t, err, ErrFilterMultiWild)
	assert.Equal(t, MalformedPacket, ReasonOf(err))

	_, err = e.AppendPublish(nil, &Publish{Topic: []byte("t"), Props: Properties{SubscriptionIDs: []uint32{3, 0}}})
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, 1, fe.Index)
	assert.ErrorIs(t, err, ErrSubscriptionIDZero)

	_, err = e.AppendPublish(nil, &Publish{Topic: []byte("a/+")})
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "topic", fe.Field)
	assert.Equal(t, -1, fe.Index)
}
