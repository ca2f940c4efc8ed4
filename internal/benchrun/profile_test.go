package benchrun

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/pprof/profile"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestProfilePattern(t *testing.T) {
	for _, tt := range []struct {
		name    string
		pattern string
		cpu     int
	}{
		{"BenchmarkX", "^BenchmarkX$", 1},
		{"BenchmarkX-4", "^BenchmarkX$", 4},
		{"BenchmarkGet/size=64/impl=pool-2", "^BenchmarkGet$/^size=64$/^impl=pool$", 2},
		{"BenchmarkA/k=v-1", "^BenchmarkA$/^k=v-1$", 1}, // no -1 suffix is ever printed
		{"BenchmarkA/k=v-1-2", "^BenchmarkA$/^k=v-1$", 2},
		{"BenchmarkA/x.y(z)|w[1]*-16", `^BenchmarkA$/^x\.y\(z\)\|w\[1\]\*$`, 16},
		{"BenchmarkA/#01", "^BenchmarkA$/^#01$", 1},
		{"BenchmarkA/n=+3", "^BenchmarkA$/^n=\\+3$", 1},
	} {
		pattern, cpu, err := profilePattern(tt.name)
		assert.NoError(t, err, "profilePattern(%q) = %q, %d, %v; want %q, %d", tt.name, pattern, cpu, err, tt.pattern, tt.cpu)
		assert.Equal(t, tt.pattern, pattern, "profilePattern(%q) = %q, %d, %v; want %q, %d", tt.name, pattern, cpu, err, tt.pattern, tt.cpu)
		assert.Equal(t, tt.cpu, cpu, "profilePattern(%q) = %q, %d, %v; want %q, %d", tt.name, pattern, cpu, err, tt.pattern, tt.cpu)
	}
	for _, bad := range []string{"", "TestX", "BenchmarkX \t 1 \t 2 ns/op"} {
		_, _, err := profilePattern(bad)
		assert.Error(t, err, "profilePattern(%q) accepted it", bad)
	}
}

// profileModule is a package whose benchmarks A/x, A/y and B each spend
// their time in a function of their own; A/x also allocates there.
const profileModule = `package p

import "testing"

var (
	sink      int
	sinkBytes []byte
)

//go:noinline
func hotAX(n int) int {
	sinkBytes = make([]byte, 64<<10)
	return spin(n)
}

//go:noinline
func hotAY(n int) int { return spin(n) }

//go:noinline
func hotB(n int) int { return spin(n) }

func spin(n int) int {
	s := 1
	for i := 0; i < n; i++ {
		s = s*31 + i ^ s>>3
	}
	return s
}

func BenchmarkA(b *testing.B) {
	b.Run("x", func(b *testing.B) {
		for b.Loop() {
			sink = hotAX(20000)
		}
	})
	b.Run("y", func(b *testing.B) {
		for b.Loop() {
			sink = hotAY(20000)
		}
	})
}

func BenchmarkB(b *testing.B) {
	for b.Loop() {
		sink = hotB(20000)
	}
}
`

// buildProfileModule builds the test binary of profileModule.
func buildProfileModule(t *testing.T) Package {
	t.Helper()
	dir := t.TempDir()
	for name, content := range map[string]string{
		"go.mod":      "module example.com/prof\n\ngo 1.26\n",
		"p/p_test.go": profileModule,
	} {
		path := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
		require.NoError(t, os.WriteFile(path, []byte(content), 0o644))
	}
	opts := Options{Dir: dir}
	ctx := context.Background()
	pkgs, err := List(ctx, opts)
	require.NoError(t, err)
	pkgs, err = Build(ctx, opts, pkgs, filepath.Join(dir, "bin"))
	require.NoError(t, err, "Build, %d packages", len(pkgs))
	require.Len(t, pkgs, 1, "Build: %v, %d packages", err, len(pkgs))
	return pkgs[0]
}

// profileFuncs parses the profile at path and returns the functions on the
// stacks of samples whose value of sample type typ is not zero, by their
// name without the package path.
func profileFuncs(t *testing.T, path, typ string) map[string]bool {
	t.Helper()
	f, err := os.Open(path)
	require.NoError(t, err)
	defer f.Close()
	prof, err := profile.Parse(f)
	require.NoError(t, err, "%s", path)
	idx := -1
	for i, st := range prof.SampleType {
		if st.Type == typ {
			idx = i
		}
	}
	require.GreaterOrEqual(t, idx, 0, "%s has no sample type %q", path, typ)
	funcs := map[string]bool{}
	for _, s := range prof.Sample {
		if s.Value[idx] == 0 {
			continue
		}
		for _, loc := range s.Location {
			for _, l := range loc.Line {
				name := l.Function.Name
				funcs[name[strings.LastIndexByte(name, '.')+1:]] = true
			}
		}
	}
	return funcs
}

// TestProfileOneBenchmark: the profile of a sub-benchmark holds its own
// hot function and none of its sibling's or of another benchmark's, at
// the GOMAXPROCS of the name's suffix.
func TestProfileOneBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and profiles a module")
	}
	p := buildProfileModule(t)
	out := t.TempDir()
	opts := Options{Benchtime: "300ms", Bench: "B", CPU: "4", Count: 3} // Bench, CPU and Count are ignored
	for _, tt := range []struct {
		name, hot string
		mem       bool
	}{
		{"BenchmarkA/x", "hotAX", true},
		{"BenchmarkA/y-2", "hotAY", false},
		{"BenchmarkB", "hotB", false},
	} {
		cpuOut := filepath.Join(out, tt.hot+".cpu.pprof")
		memOut := ""
		if tt.mem {
			memOut = filepath.Join(out, tt.hot+".alloc.pprof")
		}
		ops, err := p.Profile(context.Background(), opts, tt.name, cpuOut, memOut)
		require.NoError(t, err, "Profile(%s)", tt.name)
		assert.Greater(t, ops, int64(0), "Profile(%s) reports %d iterations", tt.name, ops)
		funcs := profileFuncs(t, cpuOut, "cpu")
		for _, hot := range []string{"hotAX", "hotAY", "hotB"} {
			assert.Equal(t, hot == tt.hot, funcs[hot], "CPU profile of %s: %s on a stack is", tt.name, hot)
		}
		if tt.mem {
			allocs := profileFuncs(t, memOut, "alloc_space")
			assert.True(t, allocs[tt.hot], "allocation profile of %s does not hold %s: %v", tt.name, tt.hot, allocs)
		}
	}
}

// TestProfileIterations: Profile returns the iteration count of its run,
// which scales a profile per operation.
func TestProfileIterations(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and profiles a module")
	}
	p := buildProfileModule(t)
	cpuOut := filepath.Join(t.TempDir(), "cpu.pprof")
	ops, err := p.Profile(context.Background(), Options{Benchtime: "7x"}, "BenchmarkA/x", cpuOut, "")
	assert.NoError(t, err, "Profile(BenchmarkA/x, -benchtime 7x) = %d, %v; want 7 iterations", ops, err)
	assert.Equal(t, int64(7), ops, "Profile(BenchmarkA/x, -benchtime 7x) = %d, %v; want 7 iterations", ops, err)
}

// TestProfileNotOneBenchmark: a name that runs no result (a parent of
// sub-benchmarks, a missing one) fails and leaves no profile behind.
func TestProfileNotOneBenchmark(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and profiles a module")
	}
	p := buildProfileModule(t)
	out := t.TempDir()
	for _, name := range []string{"BenchmarkA", "BenchmarkNoSuch", "BenchmarkA/z", "BenchmarkB-1"} {
		cpuOut, memOut := filepath.Join(out, "cpu.pprof"), filepath.Join(out, "mem.pprof")
		_, err := p.Profile(context.Background(), Options{Benchtime: "1x"}, name, cpuOut, memOut)
		assert.ErrorContains(t, err, "want exactly that benchmark", "Profile(%s) = %v, want an error saying it did not run exactly that benchmark", name, err)
		left, _ := filepath.Glob(filepath.Join(out, "*"))
		assert.Empty(t, left, "Profile(%s) left %v", name, left)
	}
}
