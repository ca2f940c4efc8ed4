// Package eventloop runs event loops — goroutines locked to their OS
// threads that run tasks, timers and file-descriptor callbacks in order
// and block in epoll_wait while idle — and TCP and Unix connections on
// them, each with a pipeline of handlers.
//
// # Connections
//
// Listen starts a server (one SO_REUSEPORT socket per loop, or one
// acceptor), Dial and DialOn connect; either way a Conn lives on one loop,
// which runs all of its handlers. Handlers implement only the events they
// care about (ActiveHandler, ReadHandler, …, WriteHandler, FlushHandler),
// and the Pipeline links each event straight to the next handler that
// implements it, recomputed when handlers are added or removed, never
// looked up per event (Netty's skip flags, as links).
//
//   - Reads land in pooled buf buffers sized adaptively between 64 B and
//     64 KiB, appended to the connection's inbound buf.Composite, which the
//     first ReadHandler consumes; a partial message stays for the next
//     read. DecoderHandler turns any codec's stream decoder (a
//     codec/frame decoder, say) into a handler.
//   - Writes queue buffers in an outbound composite; Flush writes them with
//     one writev and waits for EPOLLOUT only while the socket is full.
//     Above the high water mark (64 KiB) the connection turns unwritable
//     and says so (OnWritabilityChanged) until it drains below the low
//     mark (32 KiB): the handler, not an unbounded buffer, decides.
//   - CloseWrite half-closes; a peer's half-close fires OnReadClosed (or
//     closes, WithCloseOnReadClosed); a reset is reported once to OnError,
//     after the bytes read before it; WithIdleTimeout closes a connection
//     that made no progress (slowloris); a handler's panic closes its own
//     connection only. Server.Shutdown stops accepting, flushes, closes
//     idle connections and waits for the rest. A connection paused by
//     PauseRead whose socket hangs up keeps what is left in it for
//     ResumeRead: no byte the peer sent is dropped.
//   - An idle connection holds no buffer: it is one heap object of 288
//     bytes (its first handler's context inside), about 330 bytes with the
//     loop's tables.
//     An echoed message allocates nothing.
//
// # Loops
//
// The loops follow Netty's EpollEventLoop's rules:
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
//   - An event belongs to a registration, not to a descriptor number: the
//     epoll data carries a generation beside the descriptor, so an event
//     raised for a descriptor closed and reused within one batch is
//     dropped.
//   - Close and Shutdown (of a Group or a Server) called on a loop return
//     at once, since the loop cannot wait for itself; Done tells when they
//     have finished.
//
// TestLoop offers the same Executor API on a virtual clock for tests
// (Netty's EmbeddedEventLoop). Loops run on Linux only; elsewhere the
// package builds, and NewGroup, Listen and Dial return ErrUnsupported.
package eventloop
