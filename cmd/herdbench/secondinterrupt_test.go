package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/herdbench/herdbench/results/folder"
)

// TestSecondInterruptDropsTheHiddenFolder: a second Ctrl-C while the
// results folder is being written exits at once without leaving its
// hidden ".<name>.partial-*" folder in --out (it once did, unseen), and
// says that nothing was saved.
func TestSecondInterruptDropsTheHiddenFolder(t *testing.T) {
	out := t.TempDir()
	st, err := folder.Stage(filepath.Join(out, "outage-20261201T200000Z"))
	if err != nil {
		t.Fatal(err)
	}
	var stderr syncBuffer
	exited := make(chan int, 1)
	ctx, release := interruptible(context.Background(), []string{"scenario"}, &stderr, func(code int) { exited <- code })
	defer release()
	for range 2 {
		if err := syscall.Kill(os.Getpid(), syscall.SIGINT); err != nil {
			t.Fatal(err)
		}
		<-ctx.Done()
	}
	if c := <-exited; c != exitSignal {
		t.Errorf("exit(%d), want %d", c, exitSignal)
	}
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("--out holds %v after the second interrupt, want nothing", entries)
	}
	if _, err := os.Stat(st.Dir); !os.IsNotExist(err) {
		t.Errorf("the hidden folder %s: %v, want it removed", st.Dir, err)
	}
	if want := "herdbench scenario: interrupted again, exiting now; the results folder being written is dropped, nothing saved"; !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr %q; want %q", stderr.String(), want)
	}
}
