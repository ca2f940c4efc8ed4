// Package hpackpeers compares netkit's codec/hpack with
// golang.org/x/net/http2/hpack, the HPACK codec of every Go HTTP/2 stack.
//
// Adapters see both codecs through one type, Field: XNetDecode and
// NetkitDecode decode a header block to a list, XNetTable and NetkitTable
// read a decoder's dynamic table (x/net has no accessor: XNetTable probes
// it with indexed fields, which change no table), XNetEncode encodes a
// list as x/net's HTTP/2 stack does, a field at a time.
//
// The tests of the package hold the comparisons:
//
//   - differential tests both ways (netkit's Encoder to x/net's Decoder,
//     x/net's Encoder to netkit's Decoder) on random connections: random
//     header lists, many blocks on one connection so that the dynamic
//     tables evolve, random table sizes changed between blocks; both
//     decoders must give the list sent, and hold the same entries, after
//     every block;
//   - FuzzDecode: netkit's and x/net's decoders must agree on accepting a
//     block (or a few on one connection), on its fields and on the tables,
//     but for the documented differences, each a row of README.md's table
//     with the rule's RFC section;
//   - benchmarks named key=value for benchstat -col /impl: Decode and
//     Encode of a browser's 10-field request, warm and cold, and the HPACK
//     bomb.
//
// Netkit's decoders in the comparisons do not validate (validation is
// tested in codec/hpack) and have their limits raised (NewNetkitDecoder),
// since x/net's Decoder has none of its own; the benchmarks use the
// default configuration. README.md holds the table of differences,
// generated from the tests' (go test -run TestReadme -update).
package hpackpeers
