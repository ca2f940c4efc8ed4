package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
)

// An output is where run and compare write their results: standard
// output, or the -o file. A regular -o file is written to a temporary
// file beside it, which commit renames over it at the end, so a run that
// fails or is interrupted leaves the previous file as it was and no
// temporary file (abort removes it). A -o that is not a regular file
// (/dev/stdout, a named pipe, a device) is written directly: there is
// nothing to keep and nothing to rename over.
type output struct {
	io.Writer
	file *os.File // the temporary or direct file; nil for standard output
	tmp  string   // the temporary file's path; "" when written directly
	path string   // the file commit renames tmp to: -o, or what it links to
	done bool
}

// createOutput returns the output of -o name, or stdout for "". It fails,
// before anything is built, when the file cannot be written: its
// directory is missing or not writable, or the file exists and is not
// writable. The temporary file gets the existing file's permissions, or
// those a new file gets (0644 less the umask).
func createOutput(name string, stdout io.Writer) (*output, error) {
	if name == "" {
		return &output{Writer: stdout}, nil
	}
	path := name
	if fi, err := os.Lstat(path); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		// Replace the file the link names, not the link.
		if real, err := filepath.EvalSymlinks(path); err == nil {
			path = real
		}
	}
	fi, err := os.Stat(path)
	switch {
	case err == nil && !fi.Mode().IsRegular():
		f, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, outputError(name, err)
		}
		return &output{Writer: f, file: f, path: path}, nil
	case err == nil:
		// Refuse a file that could not be truncated now, as before.
		probe, err := os.OpenFile(path, os.O_WRONLY, 0)
		if err != nil {
			return nil, outputError(name, err)
		}
		probe.Close()
	case !errors.Is(err, fs.ErrNotExist):
		return nil, outputError(name, err)
	}
	dir, base := filepath.Split(path)
	for range 100 {
		tmp := filepath.Join(dir, "."+base+".tmp-"+strconv.FormatUint(uint64(rand.Uint32()), 10))
		f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return nil, outputError(name, err)
		}
		if fi != nil {
			if err := f.Chmod(fi.Mode().Perm()); err != nil {
				f.Close()
				os.Remove(tmp)
				return nil, outputError(name, err)
			}
		}
		return &output{Writer: f, file: f, tmp: tmp, path: path}, nil
	}
	return nil, outputError(name, errors.New("no free name for a temporary file beside it"))
}

// outputError reports that -o name cannot be written, with the cause
// alone when it is an *fs.PathError naming the temporary file.
func outputError(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return fail(fmt.Errorf("cannot write -o %s: %w", name, err))
}

// commit closes the file and renames the temporary file over -o. After
// commit, abort does nothing.
func (o *output) commit() error {
	if o.done || o.file == nil {
		o.done = true
		return nil
	}
	o.done = true
	err := o.file.Close()
	if o.tmp == "" {
		return err
	}
	if err == nil {
		err = os.Rename(o.tmp, o.path)
	}
	if err != nil {
		os.Remove(o.tmp)
	}
	return err
}

// abort closes the file and removes the temporary file, leaving -o as it
// was; it does nothing after commit.
func (o *output) abort() {
	if o.done || o.file == nil {
		return
	}
	o.done = true
	o.file.Close()
	if o.tmp != "" {
		os.Remove(o.tmp)
	}
}
