package http1

// reasons lists the status codes whose status line is precomputed, with
// the reason phrases of RFC 9110 §15 (RFC 6585 for 429 and 431).
var reasons = [...]struct {
	code   int
	reason string
}{
	{100, "Continue"},
	{101, "Switching Protocols"},
	{200, "OK"},
	{201, "Created"},
	{202, "Accepted"},
	{204, "No Content"},
	{206, "Partial Content"},
	{301, "Moved Permanently"},
	{302, "Found"},
	{303, "See Other"},
	{304, "Not Modified"},
	{307, "Temporary Redirect"},
	{308, "Permanent Redirect"},
	{400, "Bad Request"},
	{401, "Unauthorized"},
	{403, "Forbidden"},
	{404, "Not Found"},
	{405, "Method Not Allowed"},
	{408, "Request Timeout"},
	{409, "Conflict"},
	{411, "Length Required"},
	{412, "Precondition Failed"},
	{413, "Content Too Large"},
	{414, "URI Too Long"},
	{415, "Unsupported Media Type"},
	{416, "Range Not Satisfiable"},
	{417, "Expectation Failed"},
	{421, "Misdirected Request"},
	{422, "Unprocessable Content"},
	{426, "Upgrade Required"},
	{429, "Too Many Requests"},
	{431, "Request Header Fields Too Large"},
	{500, "Internal Server Error"},
	{501, "Not Implemented"},
	{502, "Bad Gateway"},
	{503, "Service Unavailable"},
	{504, "Gateway Timeout"},
	{505, "HTTP Version Not Supported"},
}

// statusLines holds "HTTP/1.1 <code> <reason>\r\n" for the codes of
// reasons, indexed by code; "" for the others.
var statusLines = func() (t [600]string) {
	for _, r := range reasons {
		t[r.code] = "HTTP/1.1 " + itoa3(r.code) + " " + r.reason + "\r\n"
	}
	return
}()

func itoa3(code int) string {
	return string([]byte{byte('0' + code/100), byte('0' + code/10%10), byte('0' + code%10)})
}

// AppendStatusLine appends the status line of an HTTP/1.1 response with
// the given code (RFC 9112 §4), "HTTP/1.1 200 OK\r\n", and returns the
// extended slice. The common codes (those of RFC 9110 §15 a server
// sends, and 429 and 431) come with their reason phrase from a table;
// any other code from 100 to 999 is written with an empty reason,
// "HTTP/1.1 299 \r\n", which RFC 9112 §4 allows. A code outside 100–999
// appends nothing: AppendResponseHeader refuses it with ErrResponseStatus.
// It allocates only when dst must grow.
func AppendStatusLine(dst []byte, code int) []byte {
	if code < 100 || code > 999 {
		return dst
	}
	if code < len(statusLines) {
		if s := statusLines[code]; s != "" {
			return append(dst, s...)
		}
	}
	return append(dst, 'H', 'T', 'T', 'P', '/', '1', '.', '1', ' ',
		byte('0'+code/100), byte('0'+code/10%10), byte('0'+code%10), ' ', '\r', '\n')
}
