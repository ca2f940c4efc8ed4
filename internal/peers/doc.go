// Package peers holds benchmarks that compare netkit with other libraries
// doing the same job, side by side in the same run:
//
//   - netkit's buffer pool with sync.Pool as the bare reference,
//     valyala/bytebufferpool, libp2p/go-buffer-pool and bytedance/gopkg's
//     lang/mcache (bufpool_test.go);
//   - netkit's multi-pattern search.Set with the Aho-Corasick automata of
//     cloudflare/ahocorasick, petar-dambovaliev/aho-corasick and
//     BobuSumisu/aho-corasick, on the inputs of the search package's own
//     benchmarks, with a test that each peer's matches equal netkit's under
//     the same match semantics (ahocorasick_test.go);
//   - netkit's codec/mqtt with the packet codecs of mochi-mqtt/server,
//     eclipse/paho.golang and eclipse/paho.mqtt.golang: differential tests
//     both ways over every packet type, the spec-forbidden inputs each
//     accepts, a fuzz target and benchmarks (package mqttpeers, whose
//     README.md holds the tables);
//   - netkit's codec/hpack and codec/http2 with x/net's hpack and its
//     HTTP/2 Framer: differential tests and fuzz targets, each with its
//     documented differences, and benchmarks (packages hpackpeers and
//     http2peers);
//   - netkit's eventloop echo server with the standard library's, gnet v2's,
//     cloudwego/netpoll's and nbio's, each a process pinned to its own CPU
//     and driven by one load generator (package echobench, command
//     cmd/echobench; `make bench-echo` from the repository root);
//   - netkit's eventloop/httpserver with fasthttp and net/http on the
//     TechEmpower plaintext and JSON endpoints and more, each a process
//     pinned to its own CPU and loaded by wrk or httpbench's own latency
//     generator (package httpbench, command cmd/httpbench;
//     `make bench-http`); both run and measure their server processes
//     with package benchproc.
//
// It is a module of its own, github.com/netkit/netkit/internal/peers, so
// that the peer libraries are dependencies of these test-only comparisons
// and never of netkit: nothing here is imported by netkit, and a user of
// netkit downloads none of the peers. Package peers has no code of its own;
// run the comparisons from this directory with
//
//	go test -run '^$' -bench . -count 10 ./... | benchstat -col /impl -
package peers
