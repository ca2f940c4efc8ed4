// Package peers holds benchmarks that compare netkit's buffer pool with the
// buffer pools of other libraries (sync.Pool as the bare reference,
// valyala/bytebufferpool, libp2p/go-buffer-pool, bytedance/gopkg's
// lang/mcache), side by side in the same run.
//
// It is a module of its own, github.com/netkit/netkit/internal/peers, so
// that the peer libraries are dependencies of these test-only comparisons
// and never of netkit: nothing here is imported by netkit, and a user of
// netkit downloads none of the peers. The package has no code of its own;
// run the comparisons from this directory with
//
//	go test -run '^$' -bench . -count 10 ./... | benchstat -col /impl -
package peers
