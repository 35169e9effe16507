package report

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A hostile or broken results folder is refused with a message naming the
// file: no hang on a FIFO, no endless read of a device, no allocation
// sized by a forged time or file, no crash.
func TestLoadRefusesHostileFolders(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, dir string)
		want  string
	}{
		{"an interval at t = 10^10 s", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "no-jitter.hlog"), func(s string) string {
				lines := strings.Split(s, "\n")
				for i := len(lines) - 1; i >= 0; i-- {
					if f := strings.Split(lines[i], ","); strings.HasPrefix(lines[i], "Tag=") {
						f[1] = "10000000000.000000"
						lines[i] = strings.Join(f, ",")
						break
					}
				}
				return strings.Join(lines, "\n")
			})
		}, "no-jitter.hlog: bad histogram log: an interval at 10000000000 s, after the run's end at 6 s"},
		{"a .hlog linked to /dev/zero", func(t *testing.T, dir string) {
			replaceWith(t, filepath.Join(dir, "no-jitter.hlog"), func(p string) error { return os.Symlink("/dev/zero", p) })
		}, "no-jitter.hlog is a symbolic link, which herdbench does not follow here"},
		{"a FIFO named scenario.yaml", func(t *testing.T, dir string) {
			replaceWith(t, filepath.Join(dir, "scenario.yaml"), func(p string) error { return syscall.Mkfifo(p, 0o644) })
		}, "scenario.yaml is a named pipe (FIFO)"},
		{"a FIFO named summary.json", func(t *testing.T, dir string) {
			replaceWith(t, filepath.Join(dir, "summary.json"), func(p string) error { return syscall.Mkfifo(p, 0o644) })
		}, "summary.json is a named pipe (FIFO)"},
		{"a 96 MB summary.json", func(t *testing.T, dir string) {
			// Sparse: 96 MB on the file's size, none on the disk.
			if err := os.Truncate(filepath.Join(dir, "summary.json"), 96<<20); err != nil {
				t.Fatal(err)
			}
		}, "summary.json is 96.0 MiB, more than the 16.0 MiB herdbench reads of it"},
		{"a folder named timeline.csv", func(t *testing.T, dir string) {
			replaceWith(t, filepath.Join(dir, "timeline.csv"), func(p string) error { return os.Mkdir(p, 0o755) })
		}, "timeline.csv is a folder"},
		{"a run of 10^10 s", func(t *testing.T, dir string) {
			editSummary(t, dir, func(m map[string]any) { m["duration_s"] = 1e10 })
		}, "duration_s is 1e+10; a run lasts more than 0 s and at most a day"},
		{"a fault past the run's end", func(t *testing.T, dir string) {
			editSummary(t, dir, func(m map[string]any) { m["faults"].([]any)[0].(map[string]any)["at_s"] = 1e300 })
		}, `fault "outage" from 1e+300 s for 1 s is outside the run's 6 s`},
		{"timeline rows 10^10 s apart", func(t *testing.T, dir string) {
			editFile(t, filepath.Join(dir, "timeline.csv"), func(s string) string {
				return strings.Replace(s, "\nno-jitter,0.01,", "\nno-jitter,10000000000.00,", 1)
			})
		}, "cohort no-jitter: rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := fixture(t, filepath.Join(t.TempDir(), "run"), 1, 0)
			c.spoil(t, dir)
			_, err := Load(dir)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Load: %v\nwant an error containing %q", err, c.want)
			}
		})
	}
}

func editFile(t *testing.T, path string, edit func(string) string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(edit(string(b))), 0o644); err != nil {
		t.Fatal(err)
	}
}

func editSummary(t *testing.T, dir string, edit func(map[string]any)) {
	t.Helper()
	editFile(t, filepath.Join(dir, "summary.json"), func(s string) string {
		var m map[string]any
		if err := json.Unmarshal([]byte(s), &m); err != nil {
			t.Fatal(err)
		}
		edit(m)
		b, err := json.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	})
}

func replaceWith(t *testing.T, path string, make func(string) error) {
	t.Helper()
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	if err := make(path); err != nil {
		t.Skip("cannot make it here:", err)
	}
}

// An interrupted rendering writes nothing.
func TestRenderContextStops(t *testing.T) {
	r := loadFixture(t, 1, 0, "x")
	ctx, cancel := contextCancelled()
	defer cancel()
	files, err := RenderContext(ctx, []*Run{r}, Options{NoPNG: true})
	if !errors.Is(err, ctx.Err()) || files != nil {
		t.Errorf("RenderContext on a cancelled context: %d files, %v", len(files), err)
	}
}

func contextCancelled() (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return ctx, cancel
}
