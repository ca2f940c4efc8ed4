package benchrun

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
)

// TestBuildKey: every input changes the key; the order of Env does not.
func TestBuildKey(t *testing.T) {
	base := BuildInputs{
		Commit:     "0123456789abcdef0123456789abcdef01234567",
		ImportPath: "example.com/m/foo",
		Env:        []string{"GOARCH=amd64", "GOFLAGS=", "GOMOD=$ROOT/go.mod"},
	}
	variants := map[string]BuildInputs{}
	add := func(name string, f func(in *BuildInputs)) {
		in := base
		in.Env = slices.Clone(base.Env)
		f(&in)
		variants[name] = in
	}
	add("commit", func(in *BuildInputs) { in.Commit = "f" + in.Commit[1:] })
	add("package", func(in *BuildInputs) { in.ImportPath = "example.com/m/baz" })
	add("tags", func(in *BuildInputs) { in.Env[1] = "GOFLAGS=-tags=extra" })
	add("module dir", func(in *BuildInputs) { in.Env[2] = "GOMOD=$ROOT/sub/go.mod" })
	add("extra env", func(in *BuildInputs) { in.Env = append(in.Env, "GOEXPERIMENT=x") })
	add("build flags", func(in *BuildInputs) { in.BuildFlags = []string{"-race"} })
	// Fields that run together must not collide.
	add("split", func(in *BuildInputs) { in.Env = []string{"GOARCH=amd64GOFLAGS=", "GOMOD=$ROOT/go.mod"} })

	keys := map[string]string{BuildKey(base): "base"}
	for name, in := range variants {
		k := BuildKey(in)
		if other, dup := keys[k]; dup {
			t.Errorf("%s and %s have one key %s", name, other, k)
		}
		keys[k] = name
	}
	swapped := base
	swapped.Env = []string{base.Env[2], base.Env[0], base.Env[1]}
	if BuildKey(swapped) != BuildKey(base) {
		t.Errorf("the order of Env changed the key")
	}
}

// newTestModule writes a module with one package that has a benchmark.
func newTestModule(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":          "module example.com/c\n\ngo 1.26\n",
		"sub/go.mod":      "module example.com/c/sub\n\ngo 1.26\n",
		"p/p_test.go":     "package p\n\nimport \"testing\"\n\nfunc BenchmarkP(b *testing.B) {\n\tfor b.Loop() {\n\t}\n}\n",
		"sub/q/q_test.go": "package q\n\nimport \"testing\"\n\nfunc TestQ(t *testing.T) {}\n",
	}
	for name, content := range files {
		path := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestBuildEnvRelative: paths inside the checkout are named relative to
// it, so two checkouts of one commit give one environment, and two modules
// of one repository give two.
func TestBuildEnvRelative(t *testing.T) {
	dir := newTestModule(t)
	ctx := context.Background()
	top, err := BuildEnv(ctx, dir, dir)
	if err != nil {
		t.Fatal(err)
	}
	sub, err := BuildEnv(ctx, filepath.Join(dir, "sub"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(top, "GOMOD=$ROOT/go.mod") || !slices.Contains(sub, "GOMOD=$ROOT/sub/go.mod") {
		t.Errorf("GOMOD not relative to the checkout:\n%q\n%q", top, sub)
	}
}

// TestCacheConcurrentBuild: runs that build one key at the same time all
// get a complete binary, and no temporary directory is left behind.
func TestCacheConcurrentBuild(t *testing.T) {
	dir := newTestModule(t)
	c := Cache{Dir: filepath.Join(t.TempDir(), "bin")}
	in := BuildInputs{Commit: "c0ffee", Env: []string{"X=1"}}
	pkgs := []Package{{ImportPath: "example.com/c/p", Dir: filepath.Join(dir, "p")}}
	const runs = 3
	var wg sync.WaitGroup
	results := make([][]Package, runs)
	errs := make([]error, runs)
	for i := range runs {
		wg.Go(func() {
			results[i], errs[i] = c.Build(context.Background(), Options{Dir: dir}, in, pkgs)
		})
	}
	wg.Wait()
	for i := range runs {
		if errs[i] != nil {
			t.Fatalf("run %d: %v", i, errs[i])
		}
		if len(results[i]) != 1 || !slices.Equal(results[i][0].Benchmarks, []string{"BenchmarkP"}) {
			t.Fatalf("run %d: %+v, want package p with BenchmarkP", i, results[i])
		}
		if _, err := os.Stat(results[i][0].Binary); err != nil {
			t.Errorf("run %d: %v", i, err)
		}
	}
	in.ImportPath = "example.com/c/p"
	if !c.Has(in) {
		t.Errorf("the binary is not in the cache")
	}
	entries, err := os.ReadDir(c.Dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != BuildKey(in) {
		t.Errorf("cache holds %v, want the one entry %s", entries, BuildKey(in))
	}
}
