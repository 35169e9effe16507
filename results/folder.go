package results

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
)

// WriteRun writes a run's results folder as one unit: every file goes into
// a hidden temporary folder beside dir (".<name>.partial-*"), which is then
// renamed to dir. A run killed while writing leaves at most that hidden
// folder, never a results folder with files missing or cut short. When dir
// already exists the folder gets a suffix (-2, -3, ...); WriteRun returns
// the path it wrote.
func WriteRun(dir string, o Output) (string, error) {
	parent, base := filepath.Dir(dir), filepath.Base(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	tmp, err := os.MkdirTemp(parent, "."+base+".partial-*")
	if err != nil {
		return "", fmt.Errorf("results: %w", err)
	}
	if err := Write(tmp, o); err != nil {
		_ = os.RemoveAll(tmp)
		return "", err
	}
	if err := os.Chmod(tmp, 0o755); err != nil {
		_ = os.RemoveAll(tmp)
		return "", fmt.Errorf("results: %w", err)
	}
	for i := 1; ; i++ {
		final := dir
		if i > 1 {
			final = dir + "-" + strconv.Itoa(i)
		}
		if _, err := os.Lstat(final); err == nil {
			continue
		} else if !errors.Is(err, fs.ErrNotExist) {
			_ = os.RemoveAll(tmp)
			return "", fmt.Errorf("results: %w", err)
		}
		if err := os.Rename(tmp, final); err != nil {
			if i < 100 && (errors.Is(err, fs.ErrExist) || errors.Is(err, os.ErrExist)) {
				continue // another run took the name meanwhile
			}
			_ = os.RemoveAll(tmp)
			return "", fmt.Errorf("results: %w", err)
		}
		return final, nil
	}
}
