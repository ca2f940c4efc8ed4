// Package eventloop runs event loops: goroutines locked to their OS
// threads that run tasks, timers and file-descriptor callbacks in order
// and block in epoll_wait while idle. It is the reactor under netkit's
// connections (next), built on Netty's EpollEventLoop's rules:
//
//   - Execute queues a task on a multi-producer single-consumer queue and
//     writes the loop's eventfd only when the loop is asleep, at most once
//     per sleep, never from the loop itself (see Loop).
//   - Timers live on the loop, in a heap whose nodes keep their index, so
//     Cancel is O(log n); nodes are pooled and a Timer is a small handle
//     (node and generation), so a stale handle's Cancel is a harmless no-op
//     and scheduling on the loop allocates nothing. A timer scheduled from
//     another goroutine travels to the loop as a task (one allocation) and
//     wakes it only if it is due before the loop's current wait ends.
//   - A wait ends at an absolute deadline on the loop's monotonic clock:
//     epoll_pwait2 with nanosecond timeouts where the kernel has it (Linux
//     5.11), whole milliseconds rounded up where not; a signal (EINTR)
//     recomputes the timeout. Timers never fire early; an idle loop with no
//     timer sleeps without timeout (no periodic wakeups).
//   - A panic in a task, timer or callback is recovered and handed to
//     Config.OnPanic; the loop goes on.
//
// TestLoop offers the same Executor API on a virtual clock for tests
// (Netty's EmbeddedEventLoop). Loops run on Linux only; elsewhere the
// package builds and NewGroup returns ErrUnsupported.
package eventloop
