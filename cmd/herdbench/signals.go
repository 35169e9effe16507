package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/results/folder"
)

// interruptible returns a context that the first Ctrl-C (SIGINT) or SIGTERM
// cancels, so the command stops cleanly and still writes what it has; a
// second one removes the hidden folder of results being written, if any
// (folder.DiscardUnpublished), and calls exit(exitSignal) at once. release stops listening for
// signals and ends the watcher goroutine. args are the command line's
// (after the program's name): the lines it writes name the command, as
// its own lines do (interruptLine).
func interruptible(parent context.Context, args []string, stderr io.Writer, exit func(int)) (ctx context.Context, release func()) {
	role := ""
	if len(args) > 0 {
		role = args[0]
	}
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
			fmt.Fprintln(stderr, interruptLine(role, time.Now(), "interrupted; stopping (interrupt again to exit at once)"))
			cancel()
		case <-done:
			return
		}
		select {
		case <-sigs:
			msg := "interrupted again, exiting now"
			if folder.DiscardUnpublished() > 0 {
				msg += "; the results folder being written is dropped, nothing saved"
			}
			fmt.Fprintln(stderr, interruptLine(role, time.Now(), msg))
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

// interruptLine writes msg as the command's own lines are written: "herdbench
// scenario: msg", and for a server (target, proxy), whose log lines are
// timestamped (serveFlags.logger), with the time first: "15:04:05.000
// herdbench proxy: msg". An unknown command is "herdbench: msg".
func interruptLine(role string, now time.Time, msg string) string {
	switch role {
	case "run":
		role = "scenario"
	case "target", "proxy":
		return logLine(now, role, msg)
	}
	if !slices.Contains(commandNames(), role) {
		return "herdbench: " + msg
	}
	return "herdbench " + role + ": " + msg
}
