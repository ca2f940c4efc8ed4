package http1

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/netkit/netkit/buf"
	"github.com/netkit/netkit/internal/httpreq"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// kindOf returns the *Violation err wraps, or err itself (nil, ErrShort,
// ErrContinue).
func kindOf(err error) error {
	var v *Violation
	if errors.As(err, &v) {
		return v
	}
	return err
}

// toSlow converts req to the reference's form, for comparison.
func toSlow(req *Request) slowReq {
	r := slowReq{
		method: req.Method, rawMethod: string(req.RawMethod), target: string(req.Target),
		path: string(req.Path), minor: req.Minor, cl: req.ContentLength, chunked: req.Chunked,
		keepAlive: req.KeepAlive, upgrade: req.Upgrade, expect100: req.Expect100, body: string(req.Body),
	}
	if req.Query != nil {
		q := string(req.Query)
		r.query = &q
	}
	if req.Host != nil {
		h := string(req.Host)
		r.host = &h
	}
	for _, h := range req.Headers {
		r.headers = append(r.headers, [2]string{string(h.Name), string(h.Value)})
	}
	for _, h := range req.Trailers {
		r.trailers = append(r.trailers, [2]string{string(h.Name), string(h.Value)})
	}
	return r
}

// fuzzConfig derives the Decoder from a byte: bare LF allowed or not, and
// default or small limits (so that the fuzzer reaches them), and returns
// it with the config the slow model runs with.
func fuzzConfig(b byte) (Decoder, config) {
	var d Decoder
	d.AllowBareLF = b&1 != 0
	if b&2 != 0 {
		d.MaxRequestLine = 24 + int(b>>4)
		d.MaxHeaderBytes = 40 + int(b>>4)*4
		d.MaxHeaders = 1 + int(b>>5)
		d.MaxBodySize = 1 + int64(b>>3)*3
	}
	return d, d.config()
}

func fuzzSeeds(f *testing.F) {
	for _, s := range []string{
		httpreq.GET10, httpreq.ChunkedPOST,
		"GET / HTTP/1.1\r\nHost: a\r\n\r\n",
		"POST /x?y HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\nExpect: 100-continue\r\n\r\nabc",
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;a=\"b\\\"c\"\r\nabc\r\n0\r\nX-T: 1\r\n\r\n",
		"GET / HTTP/1.0\nConnection: keep-alive\n\n",
		"CONNECT a.example:443 HTTP/1.1\r\nHost: a.example:443\r\n\r\n",
		"OPTIONS * HTTP/1.1\r\nHost: a\r\n\r\n",
		"GET http://a/b HTTP/1.1\r\nHost: a\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n",
		"POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 1\r\nTransfer-Encoding: chunked\r\n\r\n",
	} {
		f.Add(byte(0), []byte(s), uint64(1))
		f.Add(byte(3), []byte(s), uint64(7))
	}
	f.Add(byte(4), []byte("Content-Length: 2\r\nConnection: close, upgrade\r\nUpgrade: x\r\n\r\nab"), uint64(3))
	f.Add(byte(5), []byte("Transfer-Encoding: gzip, chunked\n\n"), uint64(3))
	f.Add(byte(8), []byte("a;x=\"q\\\"\" ; y\r\n0123456789\r\n0\r\nT: v\r\n\r\n"), uint64(5))
	f.Add(byte(10), []byte("1\r\na\r\n2\r\nbc\r\n0\r\n\r\n"), uint64(9))
}

// FuzzDecodeBytes checks DecodeBytes against slowParse (same verdict, same
// violation, same fields), and Decode over random splits of the input
// into reads against DecodeBytes.
func FuzzDecodeBytes(f *testing.F) {
	fuzzSeeds(f)
	f.Fuzz(func(t *testing.T, flags byte, data []byte, seed uint64) {
		// Flags 4 and 8 put the data after a valid start, so that the
		// fuzzer spends its time on header fields and chunked bodies.
		switch flags & 12 {
		case 4:
			data = append([]byte("POST / HTTP/1.1\r\nHost: a\r\n"), data...)
		case 8:
			data = append([]byte("POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n"), data...)
		}
		d, cfg := fuzzConfig(flags)
		fresh := d
		p := append([]byte(nil), data...)
		var req Request
		n, err := d.DecodeBytes(p, &req)
		want, wn, werr := slowParse(cfg, data)
		require.Equal(t, werr, kindOf(err), "DecodeBytes: %v", err)
		if err == nil {
			require.Equal(t, wn, n, "DecodeBytes took %d bytes, reference %d", n, wn)
			got := toSlow(&req)
			require.Equal(t, want, got, "DecodeBytes:\n%+v\nreference:\n%+v", got, want)
		}
		require.False(t, err != nil && err != ErrShort && n != 0, "n = %d with %v", n, err)
		if err != nil && err != ErrShort {
			var se *SyntaxError
			require.True(t, errors.As(err, &se), "error %v is not a SyntaxError with a status", err)
			require.GreaterOrEqual(t, StatusOf(err), 400, "error %v is not a SyntaxError with a status", err)
		}
		streamer := fresh
		got := decodeSplit(t, &fresh, data, seed)
		require.Equal(t, kindOf(err), kindOf(got.err), "Decode: %v, DecodeBytes: %v", got.err, err)
		if err == nil {
			require.Equal(t, n, got.n, "Decode took %d bytes, DecodeBytes %d", got.n, n)
			require.Equal(t, toSlow(&req), got.req, "Decode:\n%+v\nParse:\n%+v", got.req, toSlow(&req))
		}
		// The same with the body streamed (StreamBodies and DecodeBody).
		streamer.StreamBodies = true
		sg := decodeSplit(t, &streamer, data, seed)
		require.Equal(t, kindOf(err), kindOf(sg.err), "streamed: %v, DecodeBytes: %v", sg.err, err)
		if err == nil {
			require.Equal(t, n, sg.n, "streamed: took %d bytes, DecodeBytes %d", sg.n, n)
			require.Equal(t, toSlow(&req), sg.req, "streamed:\n%+v\nParse:\n%+v", sg.req, toSlow(&req))
		}
	})
}

type decodeResult struct {
	req slowReq
	n   int
	err error
}

// decodeSplit feeds data to d in reads cut at random points (from seed)
// until Decode gives a request or an error; ErrShort when it never does.
func decodeSplit(t *testing.T, d *Decoder, data []byte, seed uint64) decodeResult {
	rng := rand.New(rand.NewPCG(seed, seed>>7))
	in := buf.NewComposite()
	defer in.Release()
	var req Request
	defer req.Release()
	fed, conts := 0, 0
	var body []byte // a streamed body, gathered (StreamBodies)
	streaming := false
	for {
		var err error
		if streaming {
			var done bool
			done, err = d.DecodeBody(in, &req, func(p []byte) error {
				body = append(body, p...)
				return nil
			})
			if err == nil && !done {
				err = ErrShort
			}
			if err == nil {
				r := toSlow(&req)
				r.body = string(body)
				return decodeResult{req: r, n: fed - in.Len()}
			}
		} else {
			err = d.Decode(in, &req)
			if err == nil && req.BodyFollows {
				require.True(t, d.StreamBodies, "BodyFollows without StreamBodies")
				require.Empty(t, req.Body)
				streaming = true
				continue
			}
		}
		switch err {
		case nil:
			return decodeResult{req: toSlow(&req), n: fed - in.Len()}
		case ErrContinue:
			conts++
			require.LessOrEqual(t, conts, 1, "ErrContinue twice")
			continue
		case ErrShort:
		default:
			return decodeResult{err: err}
		}
		if fed == len(data) {
			return decodeResult{err: ErrShort}
		}
		k := 1 + rng.IntN(len(data)-fed)
		if rng.IntN(4) == 0 {
			k = min(len(data)-fed, 1+rng.IntN(3))
		}
		b := buf.Get(k)
		b.Write(data[fed : fed+k])
		in.Append(b)
		fed += k
	}
}

// TestDecodeEverySplit decodes the two benchmark requests, and a chunked
// request with a trailer, cut into two and into three reads at every
// point, and compares with DecodeBytes of the whole.
func TestDecodeEverySplit(t *testing.T) {
	for _, s := range []string{
		httpreq.GET10, httpreq.ChunkedPOST,
		"POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n3;x=\"y\"\r\nabc\r\n0\r\nX-T: 1\r\n\r\n",
	} {
		var whole Request
		p := []byte(s)
		n, err := decodeBytes(p, &whole)
		require.NoError(t, err, "DecodeBytes: %d,", n)
		require.Equal(t, len(s), n, "DecodeBytes: %d, %v", n, err)
		want := toSlow(&whole)
		check := func(cuts ...int) {
			t.Helper()
			d := new(Decoder)
			in := buf.NewComposite()
			defer in.Release()
			var req Request
			defer req.Release()
			prev := 0
			cuts = append(cuts, len(s))
			var err error
			for _, c := range cuts {
				if c > prev {
					b := buf.Get(c - prev)
					b.Write([]byte(s[prev:c]))
					in.Append(b)
				}
				prev = c
				if err = d.Decode(in, &req); err == nil {
					break
				}
				require.Equal(t, ErrShort, err, "cuts %v", cuts)
			}
			require.NoError(t, err, "cuts %v", cuts)
			require.Equal(t, 0, in.Len(), "cuts %v: %d bytes left", cuts, in.Len())
			got := toSlow(&req)
			require.Equal(t, want, got, "cuts %v:\n%+v\nwant\n%+v", cuts, got, want)
		}
		for i := 0; i <= len(s); i++ {
			check(i)
		}
		step := 1
		if testing.Short() {
			step = 7
		}
		for i := 0; i <= len(s); i += step {
			for j := i; j <= len(s); j += step {
				check(i, j)
			}
		}
	}
}

func TestFuzzSeedsAgainstSlow(t *testing.T) {
	for i := 0; i < 4; i++ {
		_, cfg := fuzzConfig(byte(i))
		for _, s := range []string{httpreq.GET10, httpreq.ChunkedPOST} {
			_, _, err := slowParse(cfg, []byte(s))
			if i&2 == 0 {
				assert.NoError(t, err, "flags %d: reference refuses %q", i, s[:20])
			}
		}
	}
	_ = fmt.Sprint
}
