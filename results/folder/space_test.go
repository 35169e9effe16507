package folder

import (
	"errors"
	"strings"
	"testing"
)

// CheckSpace refuses exactly when the free space is below the need, and
// says how much is needed and free; a free space it cannot read refuses
// nothing.
func TestCheckSpace(t *testing.T) {
	const mib = 1 << 20
	for _, c := range []struct {
		name       string
		free       uint64
		err        error
		need       uint64
		refused    bool
		wantInText []string
	}{
		{"plenty", 100 * mib, nil, 10 * mib, false, nil},
		{"exactly enough", 10 * mib, nil, 10 * mib, false, nil},
		{"a byte short", 10*mib - 1, nil, 10 * mib, true, []string{"/out has 10 MiB free", "needs about 10 MiB: timelines"}},
		{"a full disk", 0, nil, 300 << 10, true, []string{"/out has 0 B free", "--out"}},
		{"unreadable", 0, errors.New("statfs: not supported"), 10 * mib, false, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			free := func(dir string) (uint64, error) {
				if dir != "/out" {
					t.Errorf("statfs of %q, want /out", dir)
				}
				return c.free, c.err
			}
			err := CheckSpace("/out", c.need, "about 10 MiB: timelines 9 MiB", free)
			if (err != nil) != c.refused || c.refused && !errors.Is(err, ErrNoSpace) {
				t.Fatalf("CheckSpace: %v; want refused %v", err, c.refused)
			}
			for _, w := range c.wantInText {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err, w)
				}
			}
		})
	}
}

func TestFreeSpaceHere(t *testing.T) {
	if n, err := FreeSpace(t.TempDir()); err != nil || n == 0 {
		t.Errorf("FreeSpace(TempDir) = %d, %v", n, err)
	}
}
