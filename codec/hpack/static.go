package hpack

// staticTable is RFC 7541 Appendix A: index i+1 is staticTable[i].
var staticTable = [...]struct{ name, value string }{
	{":authority", ""},
	{":method", "GET"},
	{":method", "POST"},
	{":path", "/"},
	{":path", "/index.html"},
	{":scheme", "http"},
	{":scheme", "https"},
	{":status", "200"},
	{":status", "204"},
	{":status", "206"},
	{":status", "304"},
	{":status", "400"},
	{":status", "404"},
	{":status", "500"},
	{"accept-charset", ""},
	{"accept-encoding", "gzip, deflate"},
	{"accept-language", ""},
	{"accept-ranges", ""},
	{"accept", ""},
	{"access-control-allow-origin", ""},
	{"age", ""},
	{"allow", ""},
	{"authorization", ""},
	{"cache-control", ""},
	{"content-disposition", ""},
	{"content-encoding", ""},
	{"content-language", ""},
	{"content-length", ""},
	{"content-location", ""},
	{"content-range", ""},
	{"content-type", ""},
	{"cookie", ""},
	{"date", ""},
	{"etag", ""},
	{"expect", ""},
	{"expires", ""},
	{"from", ""},
	{"host", ""},
	{"if-match", ""},
	{"if-modified-since", ""},
	{"if-none-match", ""},
	{"if-range", ""},
	{"if-unmodified-since", ""},
	{"last-modified", ""},
	{"link", ""},
	{"location", ""},
	{"max-forwards", ""},
	{"proxy-authenticate", ""},
	{"proxy-authorization", ""},
	{"range", ""},
	{"referer", ""},
	{"refresh", ""},
	{"retry-after", ""},
	{"server", ""},
	{"set-cookie", ""},
	{"strict-transport-security", ""},
	{"transfer-encoding", ""},
	{"user-agent", ""},
	{"vary", ""},
	{"via", ""},
	{"www-authenticate", ""},
}

// staticLen is the number of static entries; dynamic indexes start after it.
const staticLen = len(staticTable)

// staticBytes holds the static table's names and values as byte slices
// over one array, so that emitting a static field converts nothing.
var staticBytes [staticLen]struct{ name, value []byte }

func init() {
	n := 0
	for _, e := range staticTable {
		n += len(e.name) + len(e.value)
	}
	mem := make([]byte, 0, n)
	for i, e := range staticTable {
		at := len(mem)
		mem = append(mem, e.name...)
		mem = append(mem, e.value...)
		staticBytes[i].name = mem[at : at+len(e.name) : at+len(e.name)]
		staticBytes[i].value = mem[at+len(e.name) : len(mem) : len(mem)]
	}
}
