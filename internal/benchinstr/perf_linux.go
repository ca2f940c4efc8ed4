//go:build linux

package benchinstr

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"os/exec"
	"reflect"
	"runtime"
	"syscall"

	"golang.org/x/sys/unix"
)

// perfEvent is a perf_event_open event: its type and config.
type perfEvent struct {
	typ    uint32
	config uint64
}

// hwInstructions is the hardware counter of retired instructions.
var hwInstructions = perfEvent{unix.PERF_TYPE_HARDWARE, unix.PERF_COUNT_HW_INSTRUCTIONS}

// openEvent opens ev on pid (0: the calling thread), counting user space
// only and inherited by the threads and processes pid starts after it is
// opened.
func openEvent(ev perfEvent, pid int) (int, error) {
	attr := unix.PerfEventAttr{
		Type:   ev.typ,
		Config: ev.config,
		Bits:   unix.PerfBitExcludeKernel | unix.PerfBitExcludeHv | unix.PerfBitInherit,
	}
	attr.Size = uint32(reflect.TypeFor[unix.PerfEventAttr]().Size()) // the struct's size, as the kernel's versioning asks
	return unix.PerfEventOpen(&attr, pid, -1, -1, unix.PERF_FLAG_FD_CLOEXEC)
}

// perfAvailable reports, as an error wrapping ErrNoCounter, why the
// hardware instruction counter cannot be opened, or nil when it can.
func perfAvailable() error {
	fd, err := openEvent(hwInstructions, 0)
	if err != nil {
		return fmt.Errorf("%w (perf_event_open: %v)", ErrNoCounter, err)
	}
	unix.Close(fd)
	return nil
}

// perfCounter counts event over a run: the child is started stopped at
// its exec (ptrace), the counter opened on it with inherit, so that every
// thread it starts is counted, and the child let go.
type perfCounter struct{ event perfEvent }

func (perfCounter) Method() Method { return Perf }

func (c perfCounter) Count(ctx context.Context, cmd *exec.Cmd) (Count, []byte, error) {
	// ptrace requests must come from the thread that started the child.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Ptrace = true
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return Count{}, nil, err
	}
	pid := cmd.Process.Pid
	var ws unix.WaitStatus
	if _, err := unix.Wait4(pid, &ws, 0, nil); err != nil || !ws.Stopped() {
		cmd.Process.Kill()
		cmd.Wait()
		return Count{}, nil, fmt.Errorf("starting %s under ptrace: wait status %v: %v", cmd.Path, ws, err)
	}
	fd, openErr := openEvent(c.event, pid)
	if err := unix.PtraceDetach(pid); err != nil {
		cmd.Process.Kill()
	}
	if openErr != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return Count{}, nil, fmt.Errorf("%w (perf_event_open: %v)", ErrNoCounter, openErr)
	}
	defer unix.Close(fd)
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return Count{}, nil, context.Cause(ctx)
		}
		return Count{}, stdout.Bytes(), fmt.Errorf("%s: %w\n%s%s", cmd.Path, err, tail(stdout.Bytes()), tail(stderr.Bytes()))
	}
	var buf [8]byte
	if n, err := unix.Read(fd, buf[:]); err != nil || n != len(buf) {
		return Count{}, stdout.Bytes(), errors.Join(errors.New("reading the instruction counter"), err)
	}
	return Count{Instructions: binary.NativeEndian.Uint64(buf[:])}, stdout.Bytes(), nil
}
