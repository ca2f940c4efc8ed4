package mqttpeers

import (
	"bytes"
	"errors"
	"testing"
)

func TestExplore(t *testing.T) {
	for _, c := range cases {
		nb, err := Netkit.Encode(&c.p)
		if err != nil {
			t.Errorf("netkit %s: encode: %v", c.name, err)
			continue
		}
		for _, impl := range []*Impl{Mochi, Paho, PahoV3} {
			if !impl.Speaks(c.p.Version) {
				continue
			}
			b, err := impl.Encode(&c.p)
			if errors.Is(err, ErrInexpressible) {
				t.Logf("%s %s: %v", impl.Name, c.name, err)
			} else if err != nil {
				t.Errorf("%s %s: encode: %v", impl.Name, c.name, err)
			} else {
				got, n, err := Netkit.Decode(b, c.p.Version)
				if err != nil {
					t.Errorf("%s→netkit %s: decode % X: %v", impl.Name, c.name, b, err)
				} else {
					if n != len(b) || !Equal(got, &c.p) {
						t.Errorf("%s→netkit %s: % X\n got %v (n=%d)\nwant %v", impl.Name, c.name, b, got, n, &c.p)
					}
					if nb2, _ := Netkit.Encode(got); !bytes.Equal(nb2, b) {
						t.Errorf("%s→netkit→netkit %s: \n peer % X\n netk % X", impl.Name, c.name, b, nb2)
					}
				}
			}
			got, n, err := impl.Decode(nb, c.p.Version)
			if err != nil {
				t.Errorf("netkit→%s %s: decode % X: %v", impl.Name, c.name, nb, err)
				continue
			}
			if n != len(nb) || !Equal(got, &c.p) {
				t.Errorf("netkit→%s %s: % X\n got %v (n=%d)\nwant %v", impl.Name, c.name, nb, got, n, &c.p)
			}
			if pb, err := impl.Encode(got); err == nil && !bytes.Equal(pb, nb) {
				t.Errorf("netkit→%s→%s %s: \n netk % X\n peer % X", impl.Name, impl.Name, c.name, nb, pb)
			}
		}
	}
}
