// Package mqttpeers compares netkit's codec/mqtt with the MQTT packet codecs
// of mochi-mqtt/server v2 (package packets), eclipse/paho.golang (MQTT 5.0)
// and eclipse/paho.mqtt.golang (MQTT 3.1.1).
//
// Each codec is an Impl: adapters that encode a neutral description of a
// packet (Packet) with the codec's own types and decode the codec's reading
// of bytes back into one, the way the library reads packets in real use.
// The tests of the package hold the comparisons: differential tests both
// ways with a table of every documented disagreement, the inputs the
// specification forbids and what each codec does with them, FuzzPeersDecode,
// and benchmarks named key=value for benchstat (-col /impl). README.md holds
// the tables, generated from the tests' tables (go test -run TestReadme
// -update).
package mqttpeers
