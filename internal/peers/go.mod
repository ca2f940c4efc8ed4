module github.com/netkit/netkit/internal/peers

go 1.26.0

require (
	github.com/bytedance/gopkg v0.1.4
	github.com/libp2p/go-buffer-pool v0.1.0
	github.com/netkit/netkit v0.0.0
	github.com/valyala/bytebufferpool v1.0.0
)

replace github.com/netkit/netkit => ../..
