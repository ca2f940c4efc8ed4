package main

import (
	"strings"
	"testing"
)

// benchPackage is a test file of package name with one benchmark, bench.
func benchPackage(name, bench string) string {
	return "package " + name + "\n\nimport \"testing\"\n\nvar sink int\n\nfunc " + bench + "(b *testing.B) {\n\tfor b.Loop() {\n\t\tsink++\n\t}\n}\n"
}

// resultsByPackage maps each "pkg: " line of benchmark output to the names
// of the result lines that follow it, without the -GOMAXPROCS suffix.
func resultsByPackage(out string) map[string][]string {
	got := map[string][]string{}
	pkg := ""
	for line := range strings.Lines(out) {
		line = strings.TrimSpace(line)
		if p, ok := strings.CutPrefix(line, "pkg: "); ok {
			pkg = p
			continue
		}
		if m := resultLine.FindStringSubmatch(line); m != nil {
			got[pkg] = append(got[pkg], m[1])
		}
	}
	return got
}

// TestRunBinaryNamesDistinct: the packages a/b_c and a_b/c once shared one
// test binary file, so one package's benchmarks ran twice under both names
// and the other's never ran.
func TestRunBinaryNamesDistinct(t *testing.T) {
	dir, _ := newModule(t, map[string]string{
		"a/b_c/x_test.go": benchPackage("b_c", "BenchmarkUnderA"),
		"a_b/c/x_test.go": benchPackage("c", "BenchmarkUnderAB"),
	})
	out, errOut, err := runIn(t, dir, "run", "-benchtime", "1x", "./a/...", "./a_b/...")
	if err != nil {
		t.Fatalf("run: %v\n%s", err, errOut)
	}
	got := resultsByPackage(out)
	want := map[string]string{"example.com/m/a/b_c": "BenchmarkUnderA", "example.com/m/a_b/c": "BenchmarkUnderAB"}
	for pkg, bench := range want {
		if names := got[pkg]; len(names) != 1 || names[0] != bench {
			t.Errorf("package %s ran %v, want [%s]\n%s", pkg, names, bench, out)
		}
	}
}
