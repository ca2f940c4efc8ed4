package flame

import (
	"bufio"
	"io"
	"strconv"
	"strings"
)

// WriteFolded writes g as folded stacks, Brendan Gregg's input format of
// flamegraph.pl (also read by speedscope and inferno): one line per call
// path with a self value, the frames from the root's child to the leaf
// joined by ";", a space and the value, as in "main.main;main.f 1230".
// For a diff a line has both values, base then new ("a;b 10 30"), as
// flamegraph.pl's differential input. Lines come in the graph's order
// (children sorted by name); values are in g.Unit(); no frame is left out,
// whatever the minimum share.
func (g *Graph) WriteFolded(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var stack []string
	var line []byte
	for i := 1; i < len(g.nodes); i++ {
		n := &g.nodes[i]
		stack = append(stack[:n.depth-1], g.names[n.name])
		if n.self == 0 && n.baseSelf == 0 {
			continue
		}
		line = append(line[:0], strings.Join(stack, ";")...)
		if g.diff {
			line = append(line, ' ')
			line = strconv.AppendInt(line, n.baseSelf, 10)
		}
		line = append(line, ' ')
		line = strconv.AppendInt(line, n.self, 10)
		line = append(line, '\n')
		if _, err := bw.Write(line); err != nil {
			return err
		}
	}
	return bw.Flush()
}
