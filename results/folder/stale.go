package folder

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// A hidden folder Stage writes into is named ".<name>.partial-p<pid>-<n>",
// after the process that writes it, and that process holds an exclusive
// flock on it until it publishes or discards it. A process killed meanwhile
// (kill -9, the out-of-memory killer, a machine that lost power) leaves
// the folder behind, unlocked: the kernel drops a dead process's locks.
// The next Stage in the same results folder removes such folders
// (removeStale), so they do not pile up unseen.
const (
	// staleAfter is how long a hidden folder nobody locks must have been
	// left unchanged before it is removed: its writer locks it as soon as
	// it has made it, so this only covers that instant.
	staleAfter = time.Minute
	// staleUnlockedAfter is how long a hidden folder whose writer cannot
	// be known must have been left unchanged before it is removed: one
	// named by an older herdbench (".<name>.partial-<n>", no pid), or one
	// on a file system that takes no locks (NFS). No results folder takes
	// hours to write.
	staleUnlockedAfter = 24 * time.Hour
)

// partialPattern is the name pattern of the hidden folders Stage makes
// for the results folder named name, for os.MkdirTemp: its pid marks its
// writer.
func partialPattern(name string) string {
	return "." + name + ".partial-p" + strconv.Itoa(os.Getpid()) + "-*"
}

// lockDir takes an exclusive flock on the folder dir, held by the returned
// file until it is closed (or the process ends). On a file system that
// takes no locks it returns nil and no error: the folder is then removed
// only after staleUnlockedAfter.
func lockDir(dir string) (*os.File, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, err
		}
		return nil, nil // no locks here
	}
	return f, nil
}

// removeStale removes the hidden folders left in parent by writers that
// are gone (see staleAfter), and returns how many it removed. Only this
// user's folders, never through a link, never one whose writer still
// holds its lock; a folder it cannot tell about is left alone.
func removeStale(parent string, now time.Time) int {
	entries, err := os.ReadDir(parent)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range entries {
		name := e.Name()
		i := strings.LastIndex(name, ".partial-")
		if !strings.HasPrefix(name, ".") || i < 1 || !e.IsDir() {
			continue
		}
		dir := filepath.Join(parent, name)
		if stale(dir, strings.HasPrefix(name[i+len(".partial-"):], "p"), now) {
			if os.RemoveAll(dir) == nil {
				n++
			}
		}
	}
	return n
}

// stale reports whether the hidden folder dir was left by a writer that
// is gone: this user's, a folder (not a link), unchanged for staleAfter
// and locked by no one, or, when its writer cannot be known (locks says
// whether its name marks a writer that locks it; a file system without
// locks), unchanged for staleUnlockedAfter.
func stale(dir string, locks bool, now time.Time) bool {
	st, err := os.Lstat(dir)
	if err != nil || !st.IsDir() {
		return false
	}
	if sys, ok := st.Sys().(*syscall.Stat_t); !ok || int(sys.Uid) != os.Getuid() {
		return false
	}
	age := now.Sub(st.ModTime())
	if age < staleAfter {
		return false
	}
	f, err := lockDir(dir)
	if err != nil {
		return false // locked: its writer is alive
	}
	if f == nil || !locks {
		return age >= staleUnlockedAfter
	}
	_ = f.Close() // RemoveAll follows; nobody else may take it: it is ours now and gone next
	return true
}
