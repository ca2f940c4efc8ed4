package benchrun

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
		other, dup := keys[k]
		assert.False(t, dup, "%s and %s have one key %s", name, other, k)
		keys[k] = name
	}
	swapped := base
	swapped.Env = []string{base.Env[2], base.Env[0], base.Env[1]}
	assert.Equal(t, BuildKey(base), BuildKey(swapped), "the order of Env changed the key")
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
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
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
	require.NoError(t, err)
	sub, err := BuildEnv(ctx, filepath.Join(dir, "sub"), dir)
	require.NoError(t, err)
	assert.False(t, !slices.Contains(top, "GOMOD=$ROOT/go.mod") || !slices.Contains(sub, "GOMOD=$ROOT/sub/go.mod"), "GOMOD not relative to the checkout:\n%q\n%q", top, sub)
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
		require.NoError(t, errs[i], "run %d", i)
		require.Len(t, results[i], 1, "run %d: want package p", i)
		require.Equal(t, []string{"BenchmarkP"}, results[i][0].Benchmarks, "run %d", i)
		_, err := os.Stat(results[i][0].Binary)
		assert.NoError(t, err, "run %d", i)
	}
	in.ImportPath = "example.com/c/p"
	assert.True(t, c.Has(in), "the binary is not in the cache")
	entries, err := os.ReadDir(c.Dir)
	require.NoError(t, err)
	if assert.Len(t, entries, 1, "cache entries") {
		assert.Equal(t, BuildKey(in), entries[0].Name(), "cache entry")
	}
}
