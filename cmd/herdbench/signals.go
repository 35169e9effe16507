package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sync"
	"syscall"
)

// interruptible returns a context that the first Ctrl-C (SIGINT) or SIGTERM
// cancels, so the command stops cleanly and still writes what it has; a
// second one calls exit(exitSignal) at once. release stops listening for
// signals and ends the watcher goroutine.
func interruptible(parent context.Context, stderr io.Writer, exit func(int)) (ctx context.Context, release func()) {
	ctx, cancel := context.WithCancel(parent)
	// One registration for both signals: no gap in which a second Ctrl-C
	// would find no handler.
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "herdbench: interrupted; stopping (interrupt again to exit at once)")
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			fmt.Fprintln(stderr, "herdbench: interrupted again, exiting now")
			exit(exitSignal)
		case <-done:
		}
	}()
	var once sync.Once
	return ctx, func() {
		once.Do(func() {
			signal.Stop(sigs)
			close(done)
			<-finished
			cancel()
		})
	}
}
