// Package httpreq holds the HTTP/1.1 requests that codec/http1's benchmarks
// and the peers' benchmarks (internal/peers) parse, so that netkit,
// fasthttp and net/http are measured on the same bytes.
package httpreq

// GET10 is a browser's GET with 10 header fields (Host, User-Agent,
// Accept, Accept-Language, Accept-Encoding, Connection, Cookie, Referer,
// Cache-Control, Upgrade-Insecure-Requests) and no body: 545 bytes.
const GET10 = "GET /static/app.js?v=4f2c&lang=en HTTP/1.1\r\n" +
	"Host: www.example.com\r\n" +
	"User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0 Safari/537.36\r\n" +
	"Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8\r\n" +
	"Accept-Language: en-US,en;q=0.9\r\n" +
	"Accept-Encoding: gzip, deflate, br\r\n" +
	"Connection: keep-alive\r\n" +
	"Cookie: sid=7f3a9c2e41b86d05; theme=dark; lang=en-US; _ga=GA1.2.1234567890\r\n" +
	"Referer: https://www.example.com/index.html\r\n" +
	"Cache-Control: max-age=0\r\n" +
	"Upgrade-Insecure-Requests: 1\r\n" +
	"\r\n"

// ChunkedPOST is a POST with 5 header fields and a body of three chunks
// (one with a chunk extension), no trailers: 96 bytes of data.
const ChunkedPOST = "POST /api/v1/events HTTP/1.1\r\n" +
	"Host: api.example.com\r\n" +
	"User-Agent: netkit-bench/1.0\r\n" +
	"Content-Type: application/json\r\n" +
	"Transfer-Encoding: chunked\r\n" +
	"Accept: */*\r\n" +
	"\r\n" +
	"20\r\n" +
	`{"event":"click","id":123456789}` + "\r\n" +
	"20;source=web\r\n" +
	`{"event":"view","id":1234567890}` + "\r\n" +
	"20\r\n" +
	`{"event":"buy","id":12345678901}` + "\r\n" +
	"0\r\n" +
	"\r\n"
