module github.com/netkit/netkit/internal/peers

go 1.26.0

require (
	github.com/BobuSumisu/aho-corasick v1.0.3
	github.com/bytedance/gopkg v0.1.4
	github.com/cloudflare/ahocorasick v0.0.0-20240916140611-054963ec9396
	github.com/libp2p/go-buffer-pool v0.1.0
	github.com/netkit/netkit v0.0.0
	github.com/petar-dambovaliev/aho-corasick v0.0.0-20250424160509-463d218d4745
	github.com/valyala/bytebufferpool v1.0.0
)

require golang.org/x/sys v0.49.0 // indirect

replace github.com/netkit/netkit => ../..
