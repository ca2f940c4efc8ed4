package benchrun

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// buildEnvVars are the go env variables that shape what go test -c builds,
// besides the source: the toolchain, the target, cgo and its tools, flags
// and experiments, and the module and workspace files in use.
var buildEnvVars = []string{
	"GOVERSION", "GOROOT", "GOOS", "GOARCH",
	"GO386", "GOAMD64", "GOARM", "GOARM64", "GOMIPS", "GOMIPS64", "GOPPC64", "GORISCV64", "GOWASM",
	"GOFLAGS", "GOEXPERIMENT", "GOFIPS140",
	"CGO_ENABLED", "CC", "CXX", "AR", "PKG_CONFIG",
	"CGO_CFLAGS", "CGO_CPPFLAGS", "CGO_CXXFLAGS", "CGO_FFLAGS", "CGO_LDFLAGS",
	"GOMOD", "GOWORK",
}

// BuildEnv returns, as sorted "NAME=value" strings, the go env variables
// that shape builds, as the go command sees them in dir: from the
// environment, the go env file, and the toolchain that dir's go.mod selects.
// Every occurrence of root (the checkout dir lies in) in a value is replaced
// by "$ROOT", so GOMOD names the module directory inside the repository and
// the values are the same for every checkout of one commit.
func BuildEnv(ctx context.Context, dir, root string) ([]string, error) {
	out, err := goCmd(ctx, dir, append([]string{"env", "-json"}, buildEnvVars...)...)
	if err != nil {
		return nil, err
	}
	var vars map[string]string
	if err := json.Unmarshal(out, &vars); err != nil {
		return nil, err
	}
	env := make([]string, 0, len(vars))
	for k, v := range vars {
		if root != "" {
			v = strings.ReplaceAll(v, filepath.Clean(root), "$ROOT")
		}
		env = append(env, k+"="+v)
	}
	slices.Sort(env)
	return env, nil
}

// BuildInputs is what decides the test binary of one package at a commit.
type BuildInputs struct {
	Commit     string   // the commit checked out, with no local changes
	ImportPath string   // the package, as go list resolved the patterns
	Env        []string // from BuildEnv: toolchain, target, GOFLAGS (build tags), module directory …
	BuildFlags []string // passed to go test -c
}

// BuildKey returns the cache key of the test binary that in describes. It
// is the one place that decides when a cached binary may be reused.
//
// Binaries are keyed per package, not per run: a run of ./foo and one of
// ./baz get different binaries, one of ./... reuses both, and -bench plays
// no part (which benchmarks run is read from the binary each time). What
// the key cannot see is outside the commit and the go env: a replace
// directive to a directory outside the repository, or a change of the C
// compiler behind an unchanged CC.
func BuildKey(in BuildInputs) string {
	in.Env = slices.Sorted(slices.Values(in.Env))
	b, err := json.Marshal(struct {
		Version string
		BuildInputs
	}{"netbench-build-1", in})
	if err != nil {
		panic(err) // strings only: cannot fail
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:16])
}

// A Cache holds test binaries in Dir, one directory per BuildKey. It is
// safe for concurrent use by several processes: a binary is built in a
// temporary directory that is renamed into place, so a reader sees a
// complete entry or none, and two runs that build one key at the same time
// keep whichever lands first.
type Cache struct {
	Dir string
}

// binary returns the path of the cached test binary of in.
func (c Cache) binary(in BuildInputs) string {
	return filepath.Join(c.Dir, BuildKey(in), binaryName(in.ImportPath))
}

// Has reports whether the test binary of in is in the cache.
func (c Cache) Has(in BuildInputs) bool {
	_, err := os.Stat(c.binary(in))
	return err == nil
}

// Build is Build with the cache: for each package it takes the test binary
// that in (with the package's import path) names from the cache, or builds
// it (go test -c in opts.Dir) and stores it. It keeps the packages that
// have benchmarks matching opts.Bench. A package that does not build is a
// *BuildError.
func (c Cache) Build(ctx context.Context, opts Options, in BuildInputs, pkgs []Package) ([]Package, error) {
	var kept []Package
	for _, p := range pkgs {
		in.ImportPath = p.ImportPath
		bin, err := c.build(ctx, opts.Dir, in)
		if err != nil {
			return nil, err
		}
		if bin == "" {
			continue // no test binary: nothing to run
		}
		p.Binary = bin
		if kept, err = keepBenchmarks(ctx, kept, p, opts.Bench); err != nil {
			return nil, err
		}
	}
	return kept, nil
}

// build returns the cached binary of in, building it first if needed; ""
// when the package has no test binary.
func (c Cache) build(ctx context.Context, dir string, in BuildInputs) (string, error) {
	bin := c.binary(in)
	if _, err := os.Stat(bin); err == nil {
		return bin, nil
	}
	if err := os.MkdirAll(c.Dir, 0o755); err != nil {
		return "", err
	}
	tmp, err := os.MkdirTemp(c.Dir, ".build-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp) // gone already when the rename succeeded
	ok, err := buildTest(ctx, dir, in.ImportPath, filepath.Join(tmp, filepath.Base(bin)), in.BuildFlags)
	if err != nil || !ok {
		return "", err
	}
	if err := os.Rename(tmp, filepath.Dir(bin)); err != nil {
		// Another run stored this key first; its binary is as good.
		if _, serr := os.Stat(bin); serr != nil {
			return "", errors.Join(err, serr)
		}
	}
	return bin, nil
}
