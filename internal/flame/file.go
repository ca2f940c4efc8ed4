package flame

import (
	"bufio"
	"errors"
	"fmt"
	"os"

	"github.com/google/pprof/profile"
)

// ReadProfiles parses the profile files at paths (protocol buffers,
// gzipped or not, or pprof's legacy formats). An error names the file.
func ReadProfiles(paths ...string) ([]*profile.Profile, error) {
	if len(paths) == 0 {
		return nil, errors.New("flame: no profiles")
	}
	ps := make([]*profile.Profile, 0, len(paths))
	for _, path := range paths {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("flame: %w", err)
		}
		p, err := profile.Parse(bufio.NewReader(f))
		f.Close()
		if err != nil {
			return nil, fmt.Errorf("flame: %s: not a profile: %w", path, err)
		}
		ps = append(ps, p)
	}
	return ps, nil
}

// WriteDiffFile reads the base and new profiles, merges each side, diffs
// them (see Diff) and writes the differential flame graph as an HTML page
// titled title to the file out. It writes nothing when an earlier step
// fails.
func WriteDiffFile(basePaths, newPaths []string, out, title string, o Options) error {
	return WriteDiffFileWith(basePaths, newPaths, out, title, o, DiffOptions{})
}

// WriteDiffFilePerOp is WriteDiffFile for profiles of one benchmark that
// ran baseOps and newOps iterations: the graph is DiffPerOp's.
func WriteDiffFilePerOp(basePaths, newPaths []string, baseOps, newOps int64, out, title string, o Options) error {
	if baseOps <= 0 || newOps <= 0 {
		return fmt.Errorf("flame: iteration counts %d and %d, want both positive", baseOps, newOps)
	}
	return WriteDiffFileWith(basePaths, newPaths, out, title, o, DiffOptions{BaseOps: baseOps, NewOps: newOps})
}

// WriteDiffFileWith is WriteDiffFile with the diff's options (see
// DiffWith).
func WriteDiffFileWith(basePaths, newPaths []string, out, title string, o Options, d DiffOptions) error {
	base, err := readGraph(basePaths, o)
	if err != nil {
		return err
	}
	new, err := readGraph(newPaths, o)
	if err != nil {
		return err
	}
	g, err := DiffWith(base, new, d)
	if err != nil {
		return err
	}
	return g.WriteHTMLFile(out, title)
}

// readGraph reads and merges the profiles at paths into a graph.
func readGraph(paths []string, o Options) (*Graph, error) {
	ps, err := ReadProfiles(paths...)
	if err != nil {
		return nil, err
	}
	return FromProfiles(ps, o)
}

// WriteHTMLFile writes g's HTML page (see WriteHTML) to the file path,
// replacing it.
func (g *Graph) WriteHTMLFile(path, title string) error {
	return g.WriteHTMLFileNotes(path, title, nil)
}

// WriteHTMLFileNotes is WriteHTMLFile with the notes of WriteHTMLNotes.
func (g *Graph) WriteHTMLFileNotes(path, title string, notes []string) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("flame: %w", err)
	}
	err = g.WriteHTMLNotes(f, title, notes)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("flame: writing %s: %w", path, err)
	}
	return nil
}
