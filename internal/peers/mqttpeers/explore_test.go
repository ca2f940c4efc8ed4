package mqttpeers

import (
	"errors"
	"testing"
)

func TestExplore(t *testing.T) {
	for _, impl := range []*Impl{Mochi, Paho, PahoV3} {
		for _, c := range cases {
			if !impl.Speaks(c.p.Version) {
				continue
			}
			b, err := impl.Encode(&c.p)
			if errors.Is(err, ErrInexpressible) {
				t.Logf("%s %s: %v", impl.Name, c.name, err)
				continue
			}
			if err != nil {
				t.Errorf("%s %s: encode: %v", impl.Name, c.name, err)
				continue
			}
			got, n, err := impl.Decode(b, c.p.Version)
			if err != nil {
				t.Errorf("%s %s: decode % X: %v", impl.Name, c.name, b, err)
				continue
			}
			if n != len(b) || !Equal(got, &c.p) {
				t.Errorf("%s %s: % X\n got %v (n=%d)\nwant %v", impl.Name, c.name, b, got, n, &c.p)
			}
		}
	}
}
