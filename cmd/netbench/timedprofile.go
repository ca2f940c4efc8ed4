package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/netkit/netkit/internal/benchprof"
	"github.com/netkit/netkit/internal/benchrun"
	"github.com/netkit/netkit/internal/flame"
)

// timedEntry is what profile records of a benchmark's per-operation
// profile, beside its files: paths are relative to the profile directory.
type timedEntry struct {
	// CPUSmall and AllocSmall are the profiles of the smaller of the two
	// runs (CPU and Alloc are the larger's).
	CPUSmall   string `json:"cpu_small"`
	AllocSmall string `json:"alloc_small,omitempty"`
	// Folded is the per-operation CPU difference as folded stacks: the
	// CPU time of Ops iterations, per call path.
	Folded string `json:"folded,omitempty"`
	// AllocFlame is the flame graph of the per-operation allocations.
	AllocFlame string `json:"alloc_flame,omitempty"`
	// Ops is the number of iterations the difference stands for.
	Ops int64 `json:"ops"`
	// Outside is the share of the larger run's plain CPU profile that
	// lies outside the timed region; OutsideDrawn that of the drawn
	// difference (set-up that grows with b.N).
	Outside      float64 `json:"outside"`
	OutsideDrawn float64 `json:"outside_drawn"`
	// Notes state how the flame graph was made, as its page does.
	Notes []string `json:"notes,omitempty"`
}

// profileTimed profiles the benchmark of e at two iteration counts
// (benchprof.Run) into files under dir named after base, and writes the
// per-operation flame graphs of its CPU time and, when e.Alloc is set, of
// its allocations, recording everything in e. A benchmark whose
// difference has no samples (too short a run) gets no flame graph and a
// note on stderr; other failures are errors.
func profileTimed(ctx context.Context, w io.Writer, pkg benchrun.Package, opts benchrun.Options, dir, base string, e *profileEntry) error {
	files := benchprof.FilesFor(inDir(dir, base), e.Alloc != "")
	pr, err := benchprof.Run(ctx, pkg, opts, e.Benchmark, files)
	if err != nil {
		return err
	}
	e.CPU, e.CPUSmall = base+".cpu.pprof", base+".cpu.small.pprof"
	if e.Alloc != "" {
		e.Alloc, e.AllocSmall = base+".alloc.pprof", base+".alloc.small.pprof"
	}
	e.Ops = pr.Ops()
	what := e.Pkg + " " + e.Benchmark
	r, err := pr.CPU(flame.Options{})
	switch {
	case errors.Is(err, flame.ErrNoSamples):
		fmt.Fprintf(w, "netbench: note: no flame graph of %s: %v (raise -benchtime)\n", what, err)
	case err != nil:
		return fmt.Errorf("flame graph of %s: %w", what, err)
	default:
		e.Outside, e.OutsideDrawn, e.Notes = r.Run.Outside(), r.PerOp.Outside(), r.Notes()
		flame := base + ".cpu.html"
		if err := r.Graph.WriteHTMLFileNotes(inDir(dir, flame), what+" (CPU per op)", r.Notes()); err != nil {
			return err
		}
		e.Flame = flame
		folded := base + ".cpu.perop.folded"
		if err := writeFoldedFile(inDir(dir, folded), r.Graph); err != nil {
			return err
		}
		e.Folded = folded
	}
	if e.Alloc == "" {
		return nil
	}
	a, err := pr.Alloc("", flame.Options{})
	switch {
	case errors.Is(err, flame.ErrNoSamples):
		return nil // nothing allocated per operation, or too little to be sampled
	case err != nil:
		return fmt.Errorf("allocation flame graph of %s: %w", what, err)
	}
	allocFlame := base + ".alloc.html"
	if err := a.Graph.WriteHTMLFileNotes(inDir(dir, allocFlame), what+" (allocated bytes per op)", a.Notes()); err != nil {
		return err
	}
	e.AllocFlame = allocFlame
	return nil
}

// writeFoldedFile writes g's folded stacks to the file path.
func writeFoldedFile(path string, g *flame.Graph) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	err = g.WriteFolded(f)
	return errors.Join(err, f.Close())
}

// outsideCell is index.txt's cell of the share outside the timed region:
// of the plain profile, and of the drawn difference.
func outsideCell(e profileEntry) string {
	if e.Flame == "" {
		return "-"
	}
	return fmt.Sprintf("%.0f%% (drawn %.0f%%)", 100*e.Outside, 100*e.OutsideDrawn)
}

// profilePerOpSide profiles the benchmark name of pkg for compare
// -profile into base.cpu.pprof and base.cpu.small.pprof and returns its
// per-operation CPU graph.
func profilePerOpSide(ctx context.Context, pkg benchrun.Package, opts benchrun.Options, name, base string) (*benchprof.Result, error) {
	pr, err := benchprof.Run(ctx, pkg, opts, name, benchprof.FilesFor(base, false))
	if err != nil {
		return nil, err
	}
	return pr.CPU(flame.Options{})
}

// writePerOpDiff writes the differential flame graph of two per-operation
// CPU graphs, each the work of its Ops iterations (flame.DiffPerOp), to
// the HTML file out, with both sides' notes.
func writePerOpDiff(old, new *benchprof.Result, renames renameFlags, out, title string) error {
	d, err := flame.DiffWith(old.Graph, new.Graph, flame.DiffOptions{BaseOps: old.Ops, NewOps: new.Ops, Renames: renames})
	if err != nil {
		return err
	}
	var notes []string
	for _, side := range []struct {
		name string
		r    *benchprof.Result
	}{{"old", old}, {"new", new}} {
		for _, n := range side.r.Notes() {
			notes = append(notes, side.name+": "+n)
		}
	}
	notes = append(notes, "colors: the change of each frame's own CPU time per operation, work that does not grow with b.N subtracted on both sides")
	return d.WriteHTMLFileNotes(out, title, notes)
}
