module github.com/netkit/netkit/internal/peers

go 1.26.0

require (
	github.com/BobuSumisu/aho-corasick v1.0.3
	github.com/bytedance/gopkg v0.1.4
	github.com/cloudflare/ahocorasick v0.0.0-20240916140611-054963ec9396
	github.com/cloudwego/netpoll v0.7.2
	github.com/eclipse/paho.golang v0.23.0
	github.com/eclipse/paho.mqtt.golang v1.5.1
	github.com/lesismal/nbio v1.6.8
	github.com/libp2p/go-buffer-pool v0.1.0
	github.com/mochi-mqtt/server/v2 v2.7.9
	github.com/netkit/netkit v0.0.0
	github.com/panjf2000/gnet/v2 v2.9.7
	github.com/petar-dambovaliev/aho-corasick v0.0.0-20250424160509-463d218d4745
	github.com/stretchr/testify v1.12.1
	github.com/valyala/bytebufferpool v1.0.0
	github.com/valyala/fasthttp v1.78.0
	golang.org/x/net v0.62.0
	golang.org/x/sys v0.49.0
)

require (
	github.com/cloudwego/gopkg v0.1.4 // indirect
	github.com/fatih/color v1.19.0 // indirect
	github.com/gorilla/websocket v1.5.3 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/mattn/go-colorable v0.1.14 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/molecule-man/go-brrr v1.3.1 // indirect
	github.com/panjf2000/ants/v2 v2.11.3 // indirect
	github.com/rs/xid v1.4.0 // indirect
	github.com/spf13/cobra v1.10.2 // indirect
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/summerwind/h2spec v2.2.1+incompatible // indirect
	go.uber.org/multierr v1.11.0 // indirect
	go.uber.org/zap v1.27.0 // indirect
	go.yaml.in/yaml/v3 v3.0.5 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	gopkg.in/natefinch/lumberjack.v2 v2.2.1 // indirect
)

replace github.com/netkit/netkit => ../..

tool github.com/summerwind/h2spec/cmd/h2spec
