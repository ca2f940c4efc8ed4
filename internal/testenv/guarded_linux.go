package testenv

import (
	"syscall"
	"testing"
)

// Guarded returns a slice of n bytes that ends where an inaccessible page
// begins, so that a read one byte past it faults: for kernels that must
// not read beyond their input. It skips the test when the memory cannot
// be mapped or protected, and unmaps it when the test ends.
func Guarded(t testing.TB, n int) []byte {
	t.Helper()
	page := syscall.Getpagesize()
	size := (n+page-1)/page*page + page
	mem, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		t.Skipf("mmap: %v", err)
	}
	t.Cleanup(func() { syscall.Munmap(mem) })
	if err := syscall.Mprotect(mem[size-page:], syscall.PROT_NONE); err != nil {
		t.Skipf("mprotect: %v", err)
	}
	return mem[size-page-n : size-page : size-page]
}
