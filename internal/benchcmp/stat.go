package benchcmp

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"golang.org/x/perf/benchfmt"
	"golang.org/x/perf/benchproc"
)

// Projection says how Project groups results, in benchstat's syntax
// (golang.org/x/perf/benchproc/syntax): Col the columns, compared with
// each other (default ".file", each input its own column), Row the rows
// (default ".fullname"), Filter the results kept (default "*", all), and
// Ignore the keys whose variation within a cell is not reported. Tables
// are per package and unit, as those of Compare.
type Projection struct {
	Col, Row, Filter, Ignore string
}

// An Input is one file of benchmark results. Label names it in the .file
// key, as a file's path or a label=path argument does in benchstat.
type Input struct {
	Label string
	R     io.Reader
}

// A Column is one column of a projection: its name (the values of the
// column key), the commit of its results when they all name the same one
// (in a commit configuration line), and the distinct file configuration
// lines of its results ("key: value"), in the order they first appear.
type Column struct {
	Name   string
	Commit string
	Config []string
}

// A Projected comparison is the two columns of a projection and the rows
// that compare them: Old is Columns[0], New Columns[1].
type Projected struct {
	Columns [2]Column
	Rows    []Row
	// Dropped counts the results left out because they have no value for
	// the column keys, such as a benchmark without the sub-benchmark key
	// of -col /key.
	Dropped int
}

// cell is one (table, row, column) group of values.
type cell struct {
	values  []float64
	iters   int
	residue map[benchproc.Key]bool
}

// A rowKey is one row of one table: package, unit and the row projection.
type rowKey struct {
	pkg, unit string
	row       benchproc.Key
}

// Project reads the inputs, keeps the results p.Filter matches and groups
// them into cells by package, unit, p.Row and p.Col, as benchstat -table
// pkg does, and compares the two columns with the statistics of Compare.
// The projection must give exactly two columns; the first is the base.
// Results without a value of the column keys are left out and counted in
// Dropped (benchstat shows them in a column of their own, compared with
// nothing). A row whose cell mixes results that differ in a key no projection names
// (and that is not ignored) gets benchstat's warning "benchmarks vary in
// KEY".
func Project(inputs []Input, p Projection, confidence float64) (*Projected, error) {
	def := func(s, d string) string {
		if strings.TrimSpace(s) == "" {
			return d
		}
		return s
	}
	filter, err := benchproc.NewFilter(def(p.Filter, "*"))
	if err != nil {
		return nil, fmt.Errorf("-filter: %w", err)
	}
	var parser benchproc.ProjectionParser
	if _, err := parser.Parse("pkg", filter); err != nil {
		return nil, err
	}
	rowBy, err := parser.Parse(def(p.Row, ".fullname"), filter)
	if err != nil {
		return nil, fmt.Errorf("-row: %w", err)
	}
	colBy, err := parser.Parse(def(p.Col, ".file"), filter)
	if err != nil {
		return nil, fmt.Errorf("-col: %w", err)
	}
	if _, err := parser.Parse(p.Ignore, filter); err != nil {
		return nil, fmt.Errorf("-ignore: %w", err)
	}
	residueBy := parser.Residue()

	cells := map[rowKey]map[benchproc.Key]*cell{}
	var order []rowKey
	var cols []benchproc.Key
	colSeen := map[benchproc.Key]bool{}
	configs := map[benchproc.Key]*colConfig{}
	dropped := 0
	for _, in := range inputs {
		br := benchfmt.NewReader(in.R, in.Label)
		for br.Scan() {
			var res *benchfmt.Result
			switch rec := br.Result().(type) {
			case *benchfmt.SyntaxError:
				return nil, rec
			case *benchfmt.Result:
				res = rec
			default:
				continue
			}
			res.SetConfig(".file", in.Label)
			if ok, err := filter.Apply(res); !ok {
				if err != nil {
					return nil, fmt.Errorf("-filter: %w", err)
				}
				continue
			}
			col := colBy.Project(res)
			if col.StringValues() == "" {
				// No value of the column keys (a benchmark without the
				// sub-benchmark key of -col): nothing to compare it with.
				dropped++
				continue
			}
			if !colSeen[col] {
				colSeen[col] = true
				cols = append(cols, col)
				configs[col] = &colConfig{seen: map[string]bool{}}
			}
			configs[col].add(res)
			row, residue := rowBy.Project(res), residueBy.Project(res)
			pkg := res.GetConfig("pkg")
			for _, v := range res.Values {
				k := rowKey{pkg, v.Unit, row}
				byCol := cells[k]
				if byCol == nil {
					byCol = map[benchproc.Key]*cell{}
					cells[k] = byCol
					order = append(order, k)
				}
				c := byCol[col]
				if c == nil {
					c = &cell{iters: res.Iters, residue: map[benchproc.Key]bool{}}
					byCol[col] = c
				}
				c.values = append(c.values, v.Value)
				c.iters = min(c.iters, res.Iters)
				c.residue[residue] = true
			}
		}
		if err := br.Err(); err != nil {
			return nil, err
		}
	}
	benchproc.SortKeys(cols)
	if len(cols) != 2 {
		names := make([]string, len(cols))
		for i, c := range cols {
			names[i] = c.StringValues()
		}
		return nil, fmt.Errorf("the columns (-col %s) are %d, not 2: %q; -filter can keep two", def(p.Col, ".file"), len(cols), names)
	}
	out := &Projected{Dropped: dropped}
	for i, c := range cols {
		out.Columns[i] = configs[c].column(c.StringValues())
	}
	for _, k := range sortRows(order) {
		byCol := cells[k]
		o, n := byCol[cols[0]], byCol[cols[1]]
		if o == nil {
			o = &cell{}
		}
		if n == nil {
			n = &cell{}
		}
		row := compareKey(key{k.pkg, k.row.StringValues(), k.unit}, o.values, n.values, o.iters, n.iters, confidence)
		for _, c := range []*cell{o, n} {
			if w := varies(c.residue); w != "" && !slices.Contains(row.Warnings, w) {
				row.Warnings = append(row.Warnings, w)
			}
		}
		out.Rows = append(out.Rows, row)
	}
	return out, nil
}

// sortRows orders the rows as Compare does, in the order they first
// appear, except that within each table (package and unit) the rows take
// benchproc's order of their keys, as benchstat's do (by default again the
// order of first appearance, so that the default projection gives
// Compare's order).
func sortRows(order []rowKey) []rowKey {
	type table struct{ pkg, unit string }
	byTable := map[table][]benchproc.Key{}
	for _, k := range order {
		t := table{k.pkg, k.unit}
		byTable[t] = append(byTable[t], k.row)
	}
	for _, keys := range byTable {
		benchproc.SortKeys(keys)
	}
	sorted := make([]rowKey, len(order))
	for i, k := range order {
		t := table{k.pkg, k.unit}
		sorted[i] = rowKey{k.pkg, k.unit, byTable[t][0]}
		byTable[t] = byTable[t][1:]
	}
	return sorted
}

// varies returns benchstat's warning for a cell whose results differ in
// residue keys, or "".
func varies(residue map[benchproc.Key]bool) string {
	keys := make([]benchproc.Key, 0, len(residue))
	for k := range residue {
		keys = append(keys, k)
	}
	fields := benchproc.NonSingularFields(keys)
	if len(fields) == 0 {
		return ""
	}
	names := make([]string, len(fields))
	for i, f := range fields {
		names[i] = f.Name
	}
	return "benchmarks vary in " + strings.Join(names, ", ")
}

// colConfig gathers the file configuration of one column's results.
type colConfig struct {
	lines   []string
	seen    map[string]bool
	commits []string
}

func (c *colConfig) add(res *benchfmt.Result) {
	for _, cfg := range res.Config {
		if !cfg.File || strings.HasPrefix(cfg.Key, ".") {
			continue
		}
		line := cfg.Key + ": " + string(cfg.Value)
		if c.seen[line] {
			continue
		}
		c.seen[line] = true
		c.lines = append(c.lines, line)
		if cfg.Key == "commit" {
			c.commits = append(c.commits, string(cfg.Value))
		}
	}
}

func (c *colConfig) column(name string) Column {
	col := Column{Name: name, Config: c.lines}
	if len(c.commits) == 1 {
		col.Commit = c.commits[0]
	}
	return col
}

// ColumnOf returns the column of one file of results: named name, with
// the file's commit (when it names one) and its configuration lines.
func ColumnOf(name string, r io.Reader) (Column, error) {
	c := &colConfig{seen: map[string]bool{}}
	br := benchfmt.NewReader(r, name)
	for br.Scan() {
		switch rec := br.Result().(type) {
		case *benchfmt.SyntaxError:
			return Column{}, rec
		case *benchfmt.Result:
			c.add(rec)
		}
	}
	return c.column(name), br.Err()
}
