package folder

import (
	"errors"
	"fmt"
	"syscall"

	"github.com/dustin/go-humanize"
)

// ErrNoSpace is wrapped by CheckSpace's error: the file system of the
// output folder has less free space than the run's results need.
var ErrNoSpace = errors.New("not enough free space for the results")

// FreeSpace returns the bytes an unprivileged process may still write on
// the file system that holds dir (statfs: the available blocks times their
// size). An empty probe file needs no block, which is why CheckWritable
// alone passes on a full disk.
func FreeSpace(dir string) (uint64, error) {
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		return 0, err
	}
	return uint64(st.Bavail) * uint64(st.Bsize), nil
}

// CheckSpace refuses, before a run, an output folder dir whose file system
// has less free space than need, the results folder's estimated size
// (what says what it is made of, for the message). free reads the free
// space (FreeSpace; tests inject their own). A file system whose free
// space cannot be read is not refused.
func CheckSpace(dir string, need uint64, what string, free func(string) (uint64, error)) error {
	have, err := free(dir)
	if err != nil || have >= need {
		return nil
	}
	return fmt.Errorf("%w: %s has %s free, and this run's results folder needs %s. "+
		"Free some space there, name another folder (--out), or make the run smaller (--duration, --strategies, fewer sweep points; --no-png saves the charts' copies)",
		ErrNoSpace, dir, humanize.IBytes(have), what)
}
