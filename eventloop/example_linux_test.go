package eventloop_test

import (
	"context"
	"fmt"
	"time"

	"github.com/netkit/netkit/eventloop"
)

// A loop runs tasks and timers in order on its own goroutine; a canceled
// timer never runs.
func ExampleLoop() {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	l := g.Next()
	done := make(chan struct{})
	l.Execute(func() { fmt.Println("task, on the loop:", l.InLoop()) })
	idle := l.Schedule(time.Hour, func() { fmt.Println("never") })
	l.Schedule(5*time.Millisecond, func() {
		fmt.Println("timer; canceling the idle timer:", idle.Cancel())
		close(done)
	})
	<-done
	fmt.Println("shutdown:", g.Shutdown(context.Background()))
	// Output:
	// task, on the loop: true
	// timer; canceling the idle timer: true
	// shutdown: <nil>
}

// Close (and Shutdown) called on one of the group's own loops — from a
// handler that received a "stop" command, say — cannot wait for that loop
// to stop: it returns at once, and Done says when the loops have stopped.
func ExampleGroup_Done() {
	g, err := eventloop.NewGroup(eventloop.Config{Loops: 2})
	if err != nil {
		fmt.Println(err)
		return
	}
	g.Next().Execute(func() {
		fmt.Println("close on a loop:", g.Close()) // returns at once
	})
	<-g.Done()
	fmt.Println("stopped; Execute now:", g.Next().Execute(func() {}))
	// Output:
	// close on a loop: <nil>
	// stopped; Execute now: eventloop: loop is closed
}
