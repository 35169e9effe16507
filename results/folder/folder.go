package folder

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
)

// Staged is a results folder being written: its files go into a hidden
// temporary folder beside the final one (".<name>.partial-p<pid>-*"), and
// Publish renames it into place. A run killed while writing or drawing its
// report leaves at most that hidden folder, never a visible results folder
// with files missing or cut short; and the next Stage in the same results
// folder removes it (stale.go).
type Staged struct {
	// Dir is the hidden folder to write into.
	Dir   string
	final string
	// first is the suffix number Stage found free (1: none), the name
	// the hidden folder carries and Publish tries first.
	first int
	// lock holds the hidden folder's flock while it is written (nil on a
	// file system without locks).
	lock *os.File
}

// Stage creates the hidden folder for the results folder dir (and dir's
// parent if needed), after removing the hidden folders that writers gone
// since (killed while writing) left in dir's parent. When dir is already
// taken, it stages the name Publish would give it (dir-2, dir-3, ...), so
// that the report drawn in the hidden folder names the folder it is
// published as.
func Stage(dir string) (*Staged, error) {
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	removeStale(parent, time.Now())
	first, err := freeSuffix(dir)
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, partialPattern(filepath.Base(suffixed(dir, first))))
	if err != nil {
		return nil, fmt.Errorf("results: %w", err)
	}
	lock, err := lockDir(tmp)
	if err != nil {
		_ = os.RemoveAll(tmp)
		return nil, fmt.Errorf("results: %w", err)
	}
	s := &Staged{Dir: tmp, final: dir, first: first, lock: lock}
	staging.Lock()
	staging.dirs[tmp] = s
	staging.Unlock()
	return s, nil
}

// staging holds the hidden folders this process staged and has neither
// published nor discarded, for DiscardUnpublished. Its lock also keeps
// Publish's rename and DiscardUnpublished apart, so a folder is either
// published whole or removed, never renamed half removed.
var staging = struct {
	sync.Mutex
	dirs map[string]*Staged
}{dirs: map[string]*Staged{}}

// DiscardUnpublished removes every hidden folder this process staged and
// has not yet published or discarded, and returns how many it removed: a
// command that exits at once (a second Ctrl-C) leaves no hidden folder of
// results nobody will see behind. A Publish after it fails.
func DiscardUnpublished() int {
	staging.Lock()
	defer staging.Unlock()
	n := 0
	for _, s := range staging.dirs {
		s.discard()
		n++
	}
	return n
}

// suffixed returns dir with the suffix number i: dir itself for 1, else
// dir-i.
func suffixed(dir string, i int) string {
	if i > 1 {
		return dir + "-" + strconv.Itoa(i)
	}
	return dir
}

// freeSuffix returns the first suffix number i whose suffixed(dir, i) does
// not exist yet.
func freeSuffix(dir string) (int, error) {
	for i := 1; ; i++ {
		if _, err := os.Lstat(suffixed(dir, i)); errors.Is(err, fs.ErrNotExist) {
			return i, nil
		} else if err != nil {
			return 0, err
		}
	}
}

// PublishedName returns the name the results folder dir is known by: its
// own name, or, for the hidden folder Stage writes into
// (".<name>.partial-p<pid>-*", where a run draws its report), the <name> it is
// published as (with the -2 Stage chose when the name was taken, unless
// another run took that name meanwhile).
func PublishedName(dir string) string {
	base := filepath.Base(filepath.Clean(dir))
	if i := strings.LastIndex(base, ".partial-"); strings.HasPrefix(base, ".") && i > 1 {
		return base[1:i]
	}
	return base
}

// Discard removes the hidden folder and everything in it.
func (s *Staged) Discard() {
	staging.Lock()
	defer staging.Unlock()
	s.discard()
}

// discard is Discard, with staging locked.
func (s *Staged) discard() {
	delete(staging.dirs, s.Dir)
	_ = os.RemoveAll(s.Dir)
	s.unlock()
}

// unlock lets go of the folder's flock.
func (s *Staged) unlock() {
	if s.lock != nil {
		_ = s.lock.Close()
		s.lock = nil
	}
}

// Publish renames the hidden folder to the results folder's name, with a
// suffix (-2, -3, ...) when that name is taken, and returns the path it
// took. On an error the hidden folder is removed.
func (s *Staged) Publish() (string, error) {
	staging.Lock()
	defer staging.Unlock()
	if err := os.Chmod(s.Dir, 0o755); err != nil {
		s.discard()
		return "", fmt.Errorf("results: %w", err)
	}
	for i := max(s.first, 1); ; i++ {
		final := suffixed(s.final, i)
		if _, err := os.Lstat(final); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			s.discard()
			return "", fmt.Errorf("results: %w", err)
		}
		if err := os.Rename(s.Dir, final); err != nil {
			if i < s.first+100 && (errors.Is(err, fs.ErrExist) || errors.Is(err, os.ErrExist)) {
				continue // another run took the name meanwhile
			}
			s.discard()
			return "", fmt.Errorf("results: %w", err)
		}
		delete(staging.dirs, s.Dir)
		s.unlock()
		return final, nil
	}
}

// CheckWritable creates the folder dir if needed and checks that files
// can be written in it, so that a run can be refused before it starts
// rather than fail to save its results after it.
func CheckWritable(dir string) error {
	if st, err := os.Stat(dir); err == nil && !st.IsDir() {
		return fmt.Errorf("%s is a file, not a folder; name a folder to write the results folders into", dir)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("cannot create %s: %w", dir, err)
	}
	f, err := os.CreateTemp(dir, ".herdbench-write-check-*")
	if err != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, err)
	}
	name := f.Name()
	cerr := f.Close()
	if err := os.Remove(name); err != nil {
		return fmt.Errorf("cannot remove files in %s: %w", dir, err)
	}
	if cerr != nil {
		return fmt.Errorf("cannot write in %s: %w", dir, cerr)
	}
	return nil
}
