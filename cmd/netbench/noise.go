package main

import (
	"bytes"
	"fmt"
	"io"
	"strings"

	"github.com/netkit/netkit/internal/benchcmp"
	"github.com/netkit/netkit/internal/benchnoise"
	"github.com/netkit/netkit/internal/benchrun"
)

// readLoad reads the 1-minute load average for the noise monitor; tests
// replace it so that their assertions do not depend on the machine's load.
var readLoad benchnoise.LoadReader = benchnoise.ReadLoadavg

// readOthers reads the CPU time of other processes for the noise monitor,
// which judges the machine by it where it can be read; tests that fake the
// load average set it to nil.
var readOthers benchnoise.OthersReader = benchnoise.ReadOthers

// noise is the noise diagnosis of one run or compare: the load monitor
// and the CPUs of -cpu-list.
type noise struct {
	mon *benchnoise.Monitor
	pin []int // -cpu-list; nil when not pinned
}

// newNoise parses -cpu-list (a usage error when malformed or naming a CPU
// netbench cannot run on) and takes the load reading before the runs.
func newNoise(cpuList string) (*noise, error) {
	n := &noise{mon: &benchnoise.Monitor{Read: readLoad, Others: readOthers}}
	if cpuList != "" {
		cpus, err := benchnoise.ParseCPUList(cpuList)
		if err == nil {
			err = benchnoise.CheckCPUList(cpus)
		}
		if err != nil {
			return nil, usageError("-cpu-list: %v", err)
		}
		n.pin = cpus
	}
	n.mon.Before()
	return n, nil
}

// pinAll pins every package's runs to -cpu-list.
func (n *noise) pinAll(pkgs []benchrun.Package) {
	for i := range pkgs {
		pkgs[i].Pin = n.pin
	}
}

// config returns the configuration lines with -cpu-list's effect: a
// cpulist line, and, without -cpu, the gomaxprocs line a pinned test
// binary runs at (the Go runtime sets GOMAXPROCS to the CPUs of its
// affinity mask).
func (n *noise) config(config []string, cpu string) []string {
	if n.pin == nil {
		return config
	}
	out := append([]string(nil), config...)
	if cpu == "" {
		for i, line := range out {
			if strings.HasPrefix(line, "gomaxprocs: ") {
				out[i] = fmt.Sprintf("gomaxprocs: %d", len(n.pin))
			}
		}
	}
	return append(out, "cpulist: "+benchnoise.FormatCPUList(n.pin))
}

// busy returns the monitor's warnings, after Stop.
func (n *noise) busy() []string { return n.mon.Warnings() }

// runNotes returns the noise warnings of a run's results (written to
// out): the busy machine, and each benchmark and unit with samples outside
// Tukey's fences (with -count 4 or more).
func (n *noise) runNotes(results []byte) []string {
	notes := n.busy()
	rows, err := benchcmp.Compare(bytes.NewReader(results), strings.NewReader(""), benchcmp.DefaultConfidence)
	if err != nil {
		return notes
	}
	judged := benchcmp.Judge(rows, benchcmp.Gate{Alpha: benchcmp.DefaultAlpha})
	benchcmp.Diagnose(judged, nil)
	for _, r := range judged {
		if r.Noise.OldOutliers > 0 {
			name := r.Name
			if r.Pkg != "" {
				name = r.Pkg + " " + name
			}
			notes = append(notes, fmt.Sprintf("outliers: %s %s: %d of %d samples outside Tukey's fences (Q1-%g·IQR to Q3+%g·IQR)",
				name, r.Unit, r.Noise.OldOutliers, r.Old.N, benchcmp.TukeyK, benchcmp.TukeyK))
		}
	}
	return notes
}

// writeRunNotes writes notes to stderr as warnings and to the results as
// trailing "noise:" configuration lines, which benchstat reads and
// ignores, so that the results file keeps them.
func writeRunNotes(out, stderr io.Writer, notes []string) error {
	for _, w := range notes {
		fmt.Fprintln(stderr, "netbench: warning: noise:", w)
		if _, err := fmt.Fprintln(out, "noise:", w); err != nil {
			return err
		}
	}
	return nil
}

// diagnose gives every compared row its noise marks and returns the
// diagnosis of the run: the busy machine and, when both revisions are
// the same code, the A/A counts.
func (n *noise) diagnose(judged []benchcmp.Judged, gate benchcmp.Gate, aa bool) *benchcmp.Diagnosis {
	d := &benchcmp.Diagnosis{Busy: n.busy()}
	if aa {
		a := benchcmp.CountAA(judged, gate)
		d.AA = &a
	}
	benchcmp.Diagnose(judged, d)
	return d
}

// writeCompareNotes writes the noise notes of a comparison to stderr.
func writeCompareNotes(stderr io.Writer, judged []benchcmp.Judged, d *benchcmp.Diagnosis) {
	for _, note := range benchcmp.NoiseNotes(judged) {
		if d.AA != nil && note == d.AA.String() {
			fmt.Fprintln(stderr, "netbench:", note)
			continue
		}
		fmt.Fprintln(stderr, "netbench: warning: noise:", note)
	}
}
