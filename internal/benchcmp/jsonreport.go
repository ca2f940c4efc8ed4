package benchcmp

import (
	"encoding/json"
	"io"
)

// A JSONReport is what WriteJSONReport writes: the two revisions (or
// columns) compared, the gate, and the judged rows.
type JSONReport struct {
	Old, New Column
	Gate     Gate
	Rows     []Judged
	// Environment holds lines ("key: value") about the whole run, such as
	// the noise monitor's load summary; omitted when empty.
	Environment []string
}

type jsonRevision struct {
	Name   string   `json:"name"`
	Commit string   `json:"commit,omitempty"`
	Config []string `json:"config"`
}

type jsonGate struct {
	Alpha        float64  `json:"alpha"`
	ThresholdPct float64  `json:"threshold_pct"`
	Units        []string `json:"units"`
	Holm         bool     `json:"holm"`
}

// WriteJSONReport writes r as one JSON object: "revisions", the old and
// the new revision, each with its name, full commit (when known) and the
// configuration lines of its results (commit, go, gomaxprocs, kernel,
// loadavg, goos, goarch, pkg, cpu, …); "gate", the settings the rows were
// judged with; "environment", r.Environment when there is any; and
// "rows", the rows of WriteJSON, each side with its samples.
func WriteJSONReport(w io.Writer, r JSONReport) error {
	rev := func(c Column) jsonRevision {
		cfg := c.Config
		if cfg == nil {
			cfg = []string{}
		}
		return jsonRevision{c.Name, c.Commit, cfg}
	}
	units := append([]string{"sec/op"}, r.Gate.Units...)
	out := struct {
		Revisions   []jsonRevision `json:"revisions"`
		Gate        jsonGate       `json:"gate"`
		Environment []string       `json:"environment,omitempty"`
		Rows        []jsonRow      `json:"rows"`
	}{
		[]jsonRevision{rev(r.Old), rev(r.New)},
		jsonGate{r.Gate.Alpha, 100 * r.Gate.Threshold, units, r.Gate.Holm},
		r.Environment,
		jsonRows(r.Rows),
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
