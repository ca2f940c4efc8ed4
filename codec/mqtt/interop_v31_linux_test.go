package mqtt_test

import (
	"context"
	"errors"
	"io"
	"net"
	"os/exec"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/codec/mqtt"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// serveOne accepts one connection on ln and plays a broker's part with
// netkit's Decoder and Encoder only: it answers the CONNECT with a CONNACK
// (a refused one carrying mqtt.ReturnCodeOf the decoding error) and
// collects clones of the packets it decodes until the client disconnects.
func serveOne(t *testing.T, ln net.Listener, d mqtt.Decoder) ([]*mqtt.Packet, error) {
	conn, err := ln.Accept()
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(ioTimeout))
	in := buf.NewComposite()
	defer in.Release()
	var pk mqtt.Packet
	defer pk.Release()
	var got []*mqtt.Packet
	for {
		r := buf.Get(readSize)
		n, rerr := conn.Read(r.AvailableBuffer()[:readSize])
		r.Commit(n)
		if n > 0 {
			in.Append(r)
		} else {
			r.Release()
		}
		for {
			err := d.Decode(in, &pk)
			if err == mqtt.ErrShort {
				break
			}
			if err != nil {
				t.Logf("server: %v", err)
				if code, ok := mqtt.ReturnCodeOf(err); ok && len(got) == 0 {
					e := mqtt.Encoder{Version: mqtt.V311}
					b, _ := e.AppendConnack(nil, &mqtt.Connack{Reason: code})
					t.Logf("server → CONNACK %x", b)
					conn.Write(b)
				}
				return got, err
			}
			t.Logf("server ← %s", describe(&pk))
			got = append(got, pk.Clone())
			switch pk.Type {
			case mqtt.TypeConnect:
				e := mqtt.Encoder{Version: pk.Version}
				b, err := e.AppendConnack(nil, &mqtt.Connack{Reason: mqtt.Accepted})
				if err != nil {
					return got, err
				}
				conn.Write(b)
			case mqtt.TypeDisconnect:
				return got, nil
			}
		}
		if rerr != nil {
			if errors.Is(rerr, io.EOF) {
				rerr = nil
			}
			return got, rerr
		}
	}
}

// TestInteropMQTT31: mosquitto_pub speaking MQTT 3.1 (-V mqttv31: protocol
// name "MQIsdp", level 3) to a listener that decodes with netkit. By
// default its CONNECT, PUBLISH and DISCONNECT decode; with RefuseV31 the
// listener answers with the return code ReturnCodeOf gives (1,
// unacceptable protocol version), which mosquitto_pub reports.
func TestInteropMQTT31(t *testing.T) {
	t.Parallel()
	pubBin := requireClient(t, "mosquitto_pub")
	for _, refuse := range []bool{false, true} {
		t.Run("refuse="+strconv.FormatBool(refuse), func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer ln.Close()
			type result struct {
				got []*mqtt.Packet
				err error
			}
			done := make(chan result, 1)
			go func() {
				got, err := serveOne(t, ln, mqtt.Decoder{RefuseV31: refuse})
				done <- result{got, err}
			}()
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			port := strconv.Itoa(ln.Addr().(*net.TCPAddr).Port)
			args := []string{"-h", "127.0.0.1", "-p", port, "-V", "mqttv31", "-q", "0", "-i", "netkit-v31",
				"-t", "interop/v31", "-m", "hello from MQTT 3.1"}
			t.Logf("run mosquitto_pub %q", args)
			out, perr := exec.CommandContext(ctx, pubBin, args...).CombinedOutput()
			t.Logf("mosquitto_pub: %v %q", perr, out)
			res := <-done
			if refuse {
				require.ErrorIs(t, res.err, mqtt.ErrVersion)
				require.Error(t, perr, "mosquitto_pub succeeded against a refusal")
				assert.Contains(t, strings.ToLower(string(out)), "protocol version")
				return
			}
			require.NoError(t, perr, "mosquitto_pub: %s", out)
			require.NoError(t, res.err)
			require.Len(t, res.got, 3, "CONNECT, PUBLISH, DISCONNECT")
			c := res.got[0]
			require.Equal(t, mqtt.TypeConnect, c.Type)
			assert.Equal(t, mqtt.V31, c.Version)
			assert.Equal(t, "MQIsdp", string(c.Connect.ProtocolName))
			assert.Equal(t, "netkit-v31", string(c.Connect.ClientID))
			p := res.got[1]
			require.Equal(t, mqtt.TypePublish, p.Type)
			assert.Equal(t, mqtt.V31, p.Version)
			assert.Equal(t, "interop/v31", string(p.Publish.Topic))
			assert.Equal(t, "hello from MQTT 3.1", string(p.Publish.Payload))
			assert.Equal(t, mqtt.TypeDisconnect, res.got[2].Type)
		})
	}
}
