package folder

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// TestFolderNameRule: the one rule of the names that start a results
// folder's name refuses every name that would make a folder elsewhere
// than directly inside --out (a path, "..", a hidden folder), or that the
// shell would misread; FolderIn checks it again where the path is built,
// and builds only paths directly inside out.
func TestFolderNameRule(t *testing.T) {
	out := filepath.Join(t.TempDir(), "runs")
	t0 := time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC)
	for _, name := range []string{"outage", "my.outage_2", "ausfall-über", "a..b"} {
		if msg := NameProblem(name); msg != "" {
			t.Errorf("NameProblem(%q) = %q, want none", name, msg)
		}
		dir, err := FolderIn(out, name, t0, "-shard-1-of-2")
		if want := filepath.Join(out, name+"-20261201T103000Z-shard-1-of-2"); err != nil || dir != want {
			t.Errorf("FolderIn(%q) = %q, %v; want %q", name, dir, err, want)
		}
	}
	for _, c := range []struct{ name, want string }{
		{"../../herd-escape", `starts with "."`},
		{"..", `starts with "."`},
		{".hidden", `starts with "."`},
		{"-rf", `starts with "-"`},
		{"a/../../b", `holds '/'`},
		{`a\b`, `holds '\\'`},
		{"a b", "holds a space"},
		{"a\x00b", "the control character U+0000"},
		{"a\nb", "holds a line break"},
		{"", "missing"},
		{strings.Repeat("a", MaxNameBytes+1), "201 bytes long"},
	} {
		msg := NameProblem(c.name)
		if !strings.Contains(msg, c.want) {
			t.Errorf("NameProblem(%q) = %q, want it to say %q", c.name, msg, c.want)
		}
		if dir, err := FolderIn(out, c.name, t0, ""); !errors.Is(err, ErrFolderName) {
			t.Errorf("FolderIn(%q) = %q, %v; want ErrFolderName", c.name, dir, err)
		}
	}
	for _, name := range []string{"", ".", "..", "../x", "a/b", ".partial", "x/../.."} {
		if dir, err := ChildIn(out, name); !errors.Is(err, ErrFolderName) {
			t.Errorf("ChildIn(%q) = %q, %v; want ErrFolderName", name, dir, err)
		}
	}
	if dir, err := ChildIn(out+"/", "report.html"); err != nil || dir != filepath.Join(out, "report.html") {
		t.Errorf("ChildIn(report.html) = %q, %v", dir, err)
	}
}

// endless is a timeline CSV that never ends: cohort a's rows, 10 ms apart.
type endless struct {
	row int
	buf []byte
}

func (e *endless) Read(p []byte) (int, error) {
	for len(e.buf) < len(p) {
		if e.row == 0 {
			e.buf = append(e.buf, "strategy,t_s,attempts,ok\n"...)
		}
		e.buf = fmt.Appendf(e.buf, "a,%.2f,1,1\n", float64(e.row)/100)
		e.row++
	}
	n := copy(p, e.buf)
	e.buf = e.buf[n:]
	return n, nil
}

// TestReadTimelineBounds: a timeline is read as a stream and each row
// checked against the run as it comes: a file with more rows than the
// run's buckets, or more cohorts than it has, is refused at the first row
// too many, with its line, even a file that never ends.
func TestReadTimelineBounds(t *testing.T) {
	b := TimelineBounds{Keys: 1, Rows: TimelineBuckets(3), DurationS: 3}
	if b.Rows != 301 {
		t.Fatalf("TimelineBuckets(3) = %d, want 301", b.Rows)
	}
	e := &endless{}
	_, _, err := ReadTimeline(e, b)
	if !errors.Is(err, ErrTimeline) || !strings.Contains(err.Error(), "line 303: cohort a: more than the 301 rows of 10 ms of a 3 s run") {
		t.Errorf("an endless timeline: %v", err)
	}
	if e.row > 302+(128<<10)/len("a,0.00,1,1\n") {
		t.Errorf("read %d rows of an endless timeline before refusing it; want it refused at the 302nd, plus at most the reader's buffers", e.row)
	}
	data := "strategy,t_s,ok\na,0.00,1\nb,0.00,1\n"
	if _, _, err := ReadTimeline(strings.NewReader(data), b); !errors.Is(err, ErrTimeline) || !strings.Contains(err.Error(), "line 3: more than the 1 cohort") {
		t.Errorf("a second cohort in a run of one: %v", err)
	}
	tiers := "strategy,tier,t_s,ok\na,front,0.00,1\na,back,0.00,1\na,third,0.00,1\n"
	if _, _, _, err := ReadTierTimeline(strings.NewReader(tiers), TimelineBounds{Keys: 2}); !errors.Is(err, ErrTimeline) || !strings.Contains(err.Error(), "line 4") {
		t.Errorf("a third tier in a run of one cohort of two tiers: %v", err)
	}
	if names, tl, err := ReadTimeline(strings.NewReader(data), TimelineBounds{Keys: 2, Rows: 1}); err != nil || len(names) != 2 || len(tl[1].Rows) != 1 {
		t.Errorf("within its bounds: %q, %v", names, err)
	}
}

// TestOpenBounded: a file above its bound is refused when opened; the
// stream stops with ctx's error once ctx ends.
func TestOpenBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "timeline.csv")
	if err := os.WriteFile(path, make([]byte, 200<<10), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := OpenBounded(context.Background(), path, 100<<10); !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "200.0 KiB, more than the 100.0 KiB") {
		t.Errorf("a file above its bound: %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	f, err := OpenBounded(ctx, path, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	buf := make([]byte, 64<<10)
	if n, err := f.Read(buf); n != len(buf) || err != nil {
		t.Fatalf("read %d, %v", n, err)
	}
	cancel()
	if n, err := f.Read(buf); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: read %d, %v; want context.Canceled", n, err)
	}
	if n, err := io.Copy(io.Discard, f); n != 0 || !errors.Is(err, context.Canceled) {
		t.Errorf("after cancel: copied %d, %v", n, err)
	}
}

// TestAddIntervalBounded: an interval index read from a file past the
// run's last interval is refused before the intervals grow to it (an
// interval at 10^10 s once grew a slice of 10^10 intervals).
func TestAddIntervalBounded(t *testing.T) {
	h := results.NewHistogram()
	_ = h.RecordValue(1000)
	iv, err := AddInterval(nil, 3, results.LastInterval(3), TagAttempt, h)
	if err != nil || len(iv) != 4 {
		t.Fatalf("an interval in the run: %d intervals, %v", len(iv), err)
	}
	iv, err = AddInterval(iv, 10_000_000_000, results.LastInterval(3), TagAttempt, h)
	if !errors.Is(err, ErrHistogramLog) || !strings.Contains(err.Error(), "an interval at 10000000000 s, after the run's end") || len(iv) != 4 {
		t.Errorf("an interval at 10^10 s: %d intervals, %v", len(iv), err)
	}
	if results.LastInterval(3) != 3 || results.LastInterval(2.5) != 3 {
		t.Errorf("LastInterval: %d, %d", results.LastInterval(3), results.LastInterval(2.5))
	}
}
