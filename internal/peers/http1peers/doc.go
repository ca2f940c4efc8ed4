// Package http1peers compares netkit's codec/http1 request parser with
// net/http's (http.ReadRequest, then the body and trailers, as its server
// reads a request) and fasthttp's (Request.Read).
//
// Adapters read a request with each parser into one neutral type, Parsed:
// NetkitParse, NetHTTPRead and FastHTTPRead; Diff says how two readings
// differ. The tests of the package hold the comparisons:
//
//   - TestDifferentialNetHTTP: seeded valid and mutated requests (the
//     mutations are the rules request smuggling relies on) through netkit
//     and net/http. Both must read valid requests alike; on mutated ones
//     netkit must reject all that net/http rejects, and may reject more
//     only by a row of the stricter table, each checked on its example
//     against ReadRequest and a running net/http server (TestStricter);
//     the requests netkit accepts and net/http rejects are parser bugs,
//     listed in the looser table, on which TestLooser fails;
//   - FuzzParseRequest: the same on arbitrary bytes;
//   - BenchmarkParse, named key=value for benchstat -col /impl, on the
//     requests of internal/httpreq, and TestBenchInputs, which checks that
//     every impl reads them alike.
//
// README.md holds the tables, generated from the tests' (go test -run
// TestReadme -update), and the benchmark commands.
package http1peers
