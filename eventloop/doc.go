// Package eventloop runs event loops — goroutines that run tasks, timers
// and file-descriptor callbacks in order and block in epoll_wait while
// idle — and TCP and Unix connections on them, each with a pipeline of
// handlers.
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
//
// # The pipeline
//
// The inbound events are OnActive, OnRead, OnReadComplete,
// OnWritabilityChanged, OnUserEvent, OnError, OnReadClosed and OnInactive;
// the outbound ones OnWrite and OnFlush. Each Context links every event to
// the next handler that implements it, and the links are recomputed when a
// handler is added, removed or replaced, so an event never visits handlers
// that ignore it (TestPipelineModel checks the links against a list model
// over random edits). A pipeline per connection comes from an Initializer,
// given to Listen or Dial in place of a handler:
//
//	srv, err := eventloop.Listen(g, "tcp", addr, eventloop.Initializer(func(c *eventloop.Conn) {
//		c.Pipeline().AddLast("decode", eventloop.NewDecoderHandler(&frame.Line{})) // one per connection
//		c.Pipeline().AddLast("app", &app{})                                        // receives each *buf.Buffer line
//	}), eventloop.WithIdleTimeout(30*time.Second))
//
// A DecoderHandler runs any codec's Decode (a codec.StreamDecoder[T]) over
// the inbound composite and fires each decoded T; a partial message waits
// for the next read. A handler's panic closes its own
// connection (after OnInactive) and goes to Config.OnPanic; the loop and
// the other connections go on. DialOn connects from a handler without
// blocking (a proxy's upstream, on the same loop: both sides' handlers on
// one goroutine), and writing one connection's inbound composite to
// another moves the bytes without a copy.
//
// # Backpressure, half-close and limits
//
//   - Water marks (default 32 KiB low, 64 KiB high, WithWaterMarks): above
//     the high mark Writable turns false and OnWritabilityChanged(false)
//     fires; below the low mark, true. Nothing is dropped and nothing
//     blocks: the handler decides — a proxy calls PauseRead on its other
//     side and ResumeRead when writable again, and TCP flow control does
//     the rest. TestProxyDeliversEverything sends 100 MB through such a
//     proxy, whose paused side's socket hangs up, and checks they arrive
//     whole.
//   - Flush writes with one writev; what the socket does not take waits for
//     EPOLLOUT, armed only while something waits.
//   - CloseWrite half-closes after flushing. The peer's half-close fires
//     OnReadClosed (the connection can still write), or closes the
//     connection (WithCloseOnReadClosed, or when no handler implements
//     OnReadClosed).
//   - WithIdleTimeout(d) closes a connection after d without progress — a
//     read of which the pipeline consumed something, or bytes written — so
//     a slowloris client trickling a frame that never completes is closed.
//     The timer is re-armed lazily, not per read.
//   - WithMaxInbound (default 4 MiB) bounds the bytes a pipeline may leave
//     unconsumed; past it the connection gets ErrInboundFull and closes.
//
// # Budgets per round
//
// Nothing starves a loop. A round runs at most 1024 tasks or 1 ms of them,
// then polls the sockets without waiting; one readiness event reads at
// most 16 times and 256 KiB; one flush or write event makes at most 16
// writev calls of at most IOV_MAX (1024) buffers each. A connection with
// more to move goes on in the next round: registrations are
// level-triggered, so nothing is left behind. These are Netty's
// runAllTasks(timeout), maxMessagesPerRead and writeSpinCount.
//
// # Tasks, timers and descriptors
//
//   - Execute pushes onto a chunked lock-free multi-producer queue (no
//     allocation beyond the caller's closure) and writes the loop's eventfd
//     only when the loop's published wakeup word says it sleeps. The loop
//     looks at its queue again after announcing a sleep, so no task waits
//     for the next timer (TestWakeNotFromInside, TestWakeOncePerBurst,
//     TestNoStrandedTask, TestIdleLoopSleeps).
//   - Timers live in a 4-ary heap whose nodes keep their index: Cancel is
//     O(log n) slot writes (the timer heap's TestMovesLogarithmic counts
//     them at 1k, 100k and 1M timers). Every schedules at a fixed rate
//     until canceled. The loop's thread runs with 1 ns of timer slack.
//   - A descriptor interface (register, modify, unregister a file
//     descriptor with a readiness callback) serves the connection layer;
//     registrations are level-triggered unless edge-triggered is asked
//     for.
//   - NewTestLoop's TestLoop runs Execute, Schedule, ScheduleAt, Every,
//     Now and InLoop on a virtual clock: Advance(d) and RunPending, no
//     goroutine, no sleeping.
package eventloop
