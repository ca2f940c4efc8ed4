package mqtt

import (
	"runtime"
	"testing"

	"github.com/netkit/netkit/internal/testenv"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// clonePackets returns decoded packets to clone, by name: a retained
// PUBLISH with a 5-byte payload (what a broker keeps per topic), a 5.0
// PUBLISH with properties, a 5.0 SUBSCRIBE and a 3.1.1 CONNECT with a will.
func clonePackets(t testing.TB) (names []string, ps []*Packet) {
	add := func(name string, v Version, b []byte, err error) {
		require.NoError(t, err, name)
		p := new(Packet)
		_, err = DecodeBytes(b, v, p)
		require.NoError(t, err, name)
		names, ps = append(names, name), append(ps, p)
	}
	e3, e5 := Encoder{Version: V311}, Encoder{Version: V5}
	b, err := e3.AppendPublish(nil, &Publish{Retain: true, Topic: []byte("a/b"), Payload: []byte("hello")})
	add("retained PUBLISH 3.1.1", V311, b, err)
	b, err = e5.AppendPublish(nil, benchPublish(V5))
	add("PUBLISH 5.0 with properties", V5, b, err)
	b, err = e5.AppendSubscribe(nil, &Subscribe{PacketID: 1, Props: Properties{SubscriptionIDs: []uint32{7}},
		Subscriptions: []Subscription{{Filter: []byte("a/b"), QoS: 1}, {Filter: []byte("x/y/#"), QoS: 2}}})
	add("SUBSCRIBE 5.0", V5, b, err)
	b, err = e3.AppendConnect(nil, &Connect{Version: V311, CleanStart: true, ClientID: []byte("client-1"),
		WillFlag: true, WillTopic: []byte("w"), WillPayload: []byte("bye"), HasUsername: true, Username: []byte("u")})
	add("CONNECT 3.1.1 with a will", 0, b, err)
	return names, ps
}

// bytesPerOp returns the bytes f allocates per call, averaged over n
// calls, from runtime.MemStats.
func bytesPerOp(n int, f func()) float64 {
	f()
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	for range n {
		f()
	}
	runtime.ReadMemStats(&b)
	return float64(b.TotalAlloc-a.TotalAlloc) / float64(n)
}

// TestCloneAllocs: Packet.Clone allocates in proportion to the packet, not
// to the union of every packet type (3.6 KiB): a retained 5-byte PUBLISH
// costs under 640 bytes in at most 2 allocations, and a 64 KiB payload
// costs 64 KiB and that much more.
func TestCloneAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	var sink *Packet
	names, ps := clonePackets(t)
	for i, p := range ps {
		allocs := testing.AllocsPerRun(100, func() { sink = p.Clone() })
		bytes := bytesPerOp(1000, func() { sink = p.Clone() })
		t.Logf("%s: %.0f allocs, %.0f bytes per Clone", names[i], allocs, bytes)
		if i == 0 {
			assert.LessOrEqual(t, bytes, 640.0, "%s: bytes per Clone", names[i])
			assert.LessOrEqual(t, allocs, 2.0, "%s: allocations per Clone", names[i])
		}
		assert.Less(t, bytes, 1536.0, "%s: bytes per Clone", names[i])
	}
	big := Packet{}
	pub, err := (&Encoder{Version: V311}).AppendPublish(nil, &Publish{Topic: []byte("a/b"), Payload: make([]byte, 65536)})
	require.NoError(t, err)
	_, err = DecodeBytes(pub, V311, &big)
	require.NoError(t, err)
	require.Equal(t, 65536, len(big.Publish.Payload))
	bytes := bytesPerOp(100, func() { sink = big.Clone() })
	t.Logf("64 KiB PUBLISH: %.0f bytes per Clone", bytes)
	assert.Less(t, bytes, 65536.0+1024, "64 KiB PUBLISH: bytes per Clone")
	_ = sink
}

// TestPublishClone: Publish.Clone copies everything a PUBLISH holds into
// memory of its own — the input may be overwritten, and appending to one
// field of the copy cannot reach another.
func TestPublishClone(t *testing.T) {
	e := Encoder{Version: V5}
	in, err := e.AppendPublish(nil, benchPublish(V5))
	require.NoError(t, err)
	var p Packet
	_, err = DecodeBytes(in, V5, &p)
	require.NoError(t, err)
	c := p.Publish.Clone()
	want, err := e.AppendPublish(nil, c)
	require.NoError(t, err)
	require.Equal(t, in, want)
	for i := range in {
		in[i] = 0xff
	}
	got, err := e.AppendPublish(nil, c)
	require.NoError(t, err)
	assert.Equal(t, want, got, "the clone changed with its input")
	_ = append(c.Topic, "XXXX"...)
	_ = append(c.Props.ContentType, "XXXX"...)
	got, err = e.AppendPublish(nil, c)
	require.NoError(t, err)
	assert.Equal(t, want, got, "appending to a field of the clone changed another")
}

// TestPublishCloneAllocs: cloning a retained PUBLISH without lists costs
// two small allocations, the Publish and one array.
func TestPublishCloneAllocs(t *testing.T) {
	testenv.SkipAllocs(t)
	retained, err := (&Encoder{Version: V311}).AppendPublish(nil, &Publish{Retain: true, Topic: []byte("a/b"), Payload: []byte("hello")})
	require.NoError(t, err)
	var p Packet
	_, err = DecodeBytes(retained, V311, &p)
	require.NoError(t, err)
	var sink *Publish
	allocs := testing.AllocsPerRun(100, func() { sink = p.Publish.Clone() })
	bytes := bytesPerOp(1000, func() { sink = p.Publish.Clone() })
	t.Logf("retained PUBLISH: %.0f allocs, %.0f bytes per Publish.Clone", allocs, bytes)
	assert.LessOrEqual(t, allocs, 2.0)
	assert.LessOrEqual(t, bytes, 448.0)
	_ = sink
}
