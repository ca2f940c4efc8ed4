package mqttpeers

import (
	"bytes"
	"io"
	"log/slog"
	"net"
	"sync"

	pp "github.com/eclipse/paho.golang/packets"
	p3 "github.com/eclipse/paho.mqtt.golang/packets"
	mqtt "github.com/mochi-mqtt/server/v2"
	mp "github.com/mochi-mqtt/server/v2/packets"
)

func init() {
	Mochi.ReadFrom = mochiReadFrom
	Paho.ReadFrom = pahoReadFrom
	PahoV3.ReadFrom = pahoV3ReadFrom
}

// mochiServer is a mochi server with its default options (no maximum
// packet size) whose clients read packets; it is never started.
var mochiServer = sync.OnceValue(func() *mqtt.Server {
	return mqtt.New(&mqtt.Options{Logger: slog.New(slog.DiscardHandler)})
})

// readerConn is a net.Conn that only reads; mochi's client needs no more
// to read a packet.
type readerConn struct {
	net.Conn // nil: any other method panics
	r        io.Reader
}

func (c *readerConn) Read(p []byte) (int, error) { return c.r.Read(p) }
func (c *readerConn) RemoteAddr() net.Addr       { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1} }

// NewMochiClient returns a client of a default mochi server reading from
// r, for MochiRead.
func NewMochiClient(r io.Reader, v byte) *mqtt.Client {
	cl := mochiServer().NewClient(&readerConn{r: r}, "peers", "peers", false)
	cl.Properties.ProtocolVersion = v
	return cl
}

// MochiRead reads one packet from cl as mochi's server does
// (Client.ReadFixedHeader, then Client.ReadPacket, which allocates the
// Remaining Length and copies the packet once more).
func MochiRead(cl *mqtt.Client) (mp.Packet, error) {
	var fh mp.FixedHeader
	if err := cl.ReadFixedHeader(&fh); err != nil {
		return mp.Packet{}, err
	}
	return cl.ReadPacket(&fh)
}

func mochiReadFrom(r io.Reader, v byte) (p *Packet, err error) {
	defer recoverInto("mochi", &err)
	pk, err := MochiRead(NewMochiClient(r, v))
	if err != nil {
		return nil, err
	}
	return fromMochi(&pk), nil
}

func pahoReadFrom(r io.Reader, v byte) (p *Packet, err error) {
	defer recoverInto("paho", &err)
	cp, err := pp.ReadPacket(r)
	if err != nil {
		return nil, err
	}
	return fromPaho(cp), nil
}

func pahoV3ReadFrom(r io.Reader, v byte) (p *Packet, err error) {
	defer recoverInto("pahov3", &err)
	cp, err := p3.ReadPacket(r)
	if err != nil {
		return nil, err
	}
	return fromPahoV3(cp, v), nil
}

// Endless returns a reader of b followed by an endless run of zero bytes:
// what a hostile peer can send after a packet header.
func Endless(b []byte) io.Reader { return io.MultiReader(bytes.NewReader(b), zeros{}) }

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

// MochiReadValidate reads one packet from r as MochiRead does and then
// validates it as MochiValidate does. It returns the reading (decoding)
// error, or else the validation error, or nil.
func MochiReadValidate(r io.Reader, v byte) (readErr, validateErr error) {
	defer recoverInto("mochi", &readErr)
	pk, err := MochiRead(NewMochiClient(r, v))
	if err != nil {
		return err, nil
	}
	return nil, mochiValidate(&pk)
}
