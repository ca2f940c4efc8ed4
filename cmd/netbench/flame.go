package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"github.com/netkit/netkit/internal/flame"
)

// flameCmd writes the flame graph of profiles, or with -diff the
// differential flame graph of two, as an HTML page or folded stacks.
func flameCmd(stdout, stderr io.Writer, args []string) error {
	fs := flag.NewFlagSet("netbench flame", flag.ContinueOnError)
	var (
		out    = fs.String("o", "", `output file, "-" for standard output (default flame.html, or flame.folded with -format folded)`)
		sample = fs.String("sample", "", "sample type: cpu, alloc_space, alloc_objects or another of the profile's")
		focus  = fs.String("focus", "", "keep only samples with a function matching this regexp on their stack")
		ignore = fs.String("ignore", "", "drop samples with a function matching this regexp on their stack")
		format = fs.String("format", "html", "output: html or folded")
		diff   = fs.Bool("diff", false, "differential flame graph of two profiles: BASE NEW")
		title  = fs.String("title", "", "title of the page (default: the profiles' names)")
	)
	minShare := percent(100 * flame.DefaultMinShare)
	fs.Var(&minShare, "min", "smallest share of the total a drawn frame has, in percent; 0 draws every frame")
	var renames renameFlags
	fs.Var(&renames, "rename", "with -diff: old=new, a name of the base profile that is new in the new one (repeatable)")
	exact := fs.Bool("exact", false, "with -diff: match frames by their exact names, without normalizing them")
	if help, err := parseFlags(fs, args, stdout); help || err != nil {
		return err
	}
	paths := fs.Args()
	switch {
	case *format != "html" && *format != "folded":
		return usageError("unknown -format %q (want html or folded)", *format)
	case *diff && len(paths) != 2:
		return usageError("flame -diff needs two profiles: netbench flame -diff BASE NEW")
	case len(paths) == 0:
		return usageError("flame needs a profile: netbench flame [flags] PROFILE...")
	case !*diff && (len(renames) > 0 || *exact):
		return usageError("-rename and -exact need -diff")
	}
	o := flame.Options{Sample: *sample, MinShare: float64(minShare) / 100}
	if minShare == 0 {
		o.MinShare = -1 // every frame
	}
	var err error
	if o.Focus, err = compile("focus", *focus); err != nil {
		return err
	}
	if o.Ignore, err = compile("ignore", *ignore); err != nil {
		return err
	}

	graph := func(paths ...string) (*flame.Graph, error) {
		ps, err := flame.ReadProfiles(paths...)
		if err != nil {
			return nil, err
		}
		return flame.FromProfiles(ps, o)
	}
	var g *flame.Graph
	if *diff {
		base, err := graph(paths[0])
		if err != nil {
			return fail(err)
		}
		new, err := graph(paths[1])
		if err != nil {
			return fail(err)
		}
		if g, err = flame.DiffWith(base, new, flame.DiffOptions{Exact: *exact, Renames: renames}); err != nil {
			return fail(err)
		}
	} else if g, err = graph(paths...); err != nil {
		return fail(err)
	}

	name := *out
	if name == "" {
		name = "flame." + *format
	}
	var w io.Writer = stdout
	var file *os.File
	if name != "-" {
		if file, err = os.Create(name); err != nil {
			return fail(err)
		}
		defer file.Close()
		w = file
	}
	if *title == "" {
		*title = defaultTitle(g, paths, *diff)
	}
	if *format == "folded" {
		err = g.WriteFolded(w)
	} else {
		err = g.WriteHTML(w, *title)
	}
	if err == nil && file != nil {
		err = file.Close()
	}
	if err != nil {
		return fail(fmt.Errorf("writing the flame graph: %w", err))
	}
	if file != nil {
		fmt.Fprintf(stderr, "netbench: wrote %s: %s flame graph of %s, %d frames drawn\n", name, *format, g.Sample(), g.Frames())
	}
	return nil
}

// compile compiles the regexp of flag -name; empty is no regexp.
func compile(name, expr string) (*regexp.Regexp, error) {
	if expr == "" {
		return nil, nil
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, usageError("-%s: %v", name, err)
	}
	return re, nil
}

// defaultTitle names the page after the profiles' files.
func defaultTitle(g *flame.Graph, paths []string, diff bool) string {
	var names []string
	for _, p := range paths {
		names = append(names, filepath.Base(p))
	}
	if diff {
		return fmt.Sprintf("%s: %s → %s", g.Sample(), names[0], names[1])
	}
	return fmt.Sprintf("%s: %s", g.Sample(), strings.Join(names, ", "))
}

// renameFlags collects the -rename flags.
type renameFlags []flame.Rename

func (r *renameFlags) String() string {
	var s []string
	for _, x := range *r {
		s = append(s, x.String())
	}
	return strings.Join(s, ",")
}

func (r *renameFlags) Set(v string) error {
	x, err := flame.ParseRename(v)
	if err != nil {
		return err
	}
	*r = append(*r, x)
	return nil
}
