package http1

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/netkit/netkit/buf"
)

// TestTargetHost checks which host a request names (RFC 9112 §3.2.2): the
// authority of an absolute-form target, whatever the Host field says; the
// target itself for CONNECT (authority-form); else the Host field. DecodeBytes
// and Decode, whole and byte by byte, agree.
func TestTargetHost(t *testing.T) {
	for _, tc := range []struct {
		in   string
		host string // "-" for none
	}{
		{"GET http://a/ HTTP/1.1\r\nHost: b\r\n\r\n", "a"},
		{"GET http://a:8080/x?y HTTP/1.1\r\nHost: b\r\n\r\n", "a:8080"},
		{"GET http://a?q=1 HTTP/1.1\r\nHost: b\r\n\r\n", "a"},
		{"GET HTTP://[::1]:80 HTTP/1.1\r\nHost: b\r\n\r\n", "[::1]:80"},
		{"GET http://a/ HTTP/1.0\r\n\r\n", "a"},
		{"GET urn:x HTTP/1.1\r\nHost: b\r\n\r\n", "b"}, // no authority
		{"GET http:/p HTTP/1.1\r\nHost: b\r\n\r\n", "b"},
		{"CONNECT a.example:443 HTTP/1.1\r\nHost: b\r\n\r\n", "a.example:443"},
		{"CONNECT [::1]:443 HTTP/1.0\r\n\r\n", "[::1]:443"},
		{"GET / HTTP/1.1\r\nHost: b\r\n\r\n", "b"},
		{"GET / HTTP/1.0\r\n\r\n", "-"},
	} {
		t.Run(tc.in, func(t *testing.T) {
			check := func(how string, req *Request) {
				if tc.host == "-" {
					require.Nil(t, req.Host, how)
					return
				}
				require.Equal(t, tc.host, string(req.Host), how)
			}
			var req Request
			n, err := decodeBytes([]byte(tc.in), &req)
			require.NoError(t, err)
			require.Equal(t, len(tc.in), n)
			check("DecodeBytes", &req)
			for _, step := range []int{len(tc.in), 1} {
				d := new(Decoder)
				in := buf.NewComposite()
				var derr error
				for i := 0; i < len(tc.in); i += step {
					b := buf.Get(step)
					b.Write([]byte(tc.in[i:min(i+step, len(tc.in))]))
					in.Append(b)
					if derr = d.Decode(in, &req); derr != ErrShort {
						break
					}
				}
				require.NoError(t, derr)
				check("Decode", &req)
				req.Release()
				in.Release()
			}
		})
	}
}

// TestAbsoluteFormPath: the Path of an absolute-form target is its path
// after the authority, as the origin-form request would have it, so that a
// router sees "/x" whichever form the client sent; Target keeps the whole
// and Query is the same in both forms.
func TestAbsoluteFormPath(t *testing.T) {
	for _, tc := range []struct {
		target, path, query string // query "-" for none
	}{
		{"http://a/x", "/x", "-"},
		{"http://a:8080/x/y?q=1", "/x/y", "q=1"},
		{"HTTPS://[::1]:443/%41", "/%41", "-"},
		{"http://a", "", "-"},
		{"http://a?q", "", "q"},
		{"http://a/", "/", "-"},
		{"urn:x", "urn:x", "-"},     // no authority: left whole
		{"http:/p", "http:/p", "-"}, // no authority either
		{"/x?y", "/x", "y"},
		{"*", "*", "-"},
	} {
		t.Run(tc.target, func(t *testing.T) {
			m := "GET "
			if tc.target == "*" {
				m = "OPTIONS "
			}
			in := m + tc.target + " HTTP/1.1\r\nHost: b\r\n\r\n"
			var req Request
			_, err := decodeBytes([]byte(in), &req)
			require.NoError(t, err)
			require.Equal(t, tc.target, string(req.Target))
			require.Equal(t, tc.path, string(req.Path))
			if tc.query == "-" {
				require.Nil(t, req.Query)
			} else {
				require.Equal(t, tc.query, string(req.Query))
			}
			slow, _, serr := slowParse(defaultCfg, []byte(in))
			require.NoError(t, serr)
			require.Equal(t, tc.path, slow.path, "the slow reference")
		})
	}
}

// TestHostEscapes: a host may hold "%25" and escapes of bytes 0x80 and up
// (parts of a UTF-8 name), not an escaped ASCII byte ("%00", "%2F"),
// which net/url refuses too; the same in an absolute-form target and a
// CONNECT's.
func TestHostEscapes(t *testing.T) {
	for _, tc := range []struct {
		in string
		ok bool
	}{
		{"GET http://caf%C3%A9.example/ HTTP/1.1\r\nHost: b\r\n\r\n", true},
		{"GET http://a%25b/ HTTP/1.1\r\nHost: b\r\n\r\n", true},
		{"GET http://%000 HTTP/1.0\r\n\r\n", false},
		{"GET http://a%2Fb/ HTTP/1.1\r\nHost: b\r\n\r\n", false},
		{"GET http://a%41/ HTTP/1.1\r\nHost: b\r\n\r\n", false},
		{"GET http://a%8/ HTTP/1.1\r\nHost: b\r\n\r\n", false},
		{"CONNECT a%00b:443 HTTP/1.1\r\nHost: b\r\n\r\n", false},
		{"CONNECT caf%C3%A9:443 HTTP/1.1\r\nHost: b\r\n\r\n", true},
	} {
		var req Request
		_, err := decodeBytes([]byte(tc.in), &req)
		_, _, serr := slowParse(defaultCfg, []byte(tc.in))
		if tc.ok {
			require.NoError(t, err, tc.in)
			require.NoError(t, serr, "slow reference: %q", tc.in)
		} else {
			require.ErrorIs(t, err, ErrTarget, tc.in)
			require.ErrorIs(t, serr, ErrTarget, "slow reference: %q", tc.in)
		}
	}
}
