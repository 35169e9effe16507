package measured

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var syncPage = flag.Bool("sync", false, "TestPerformancePageIsCurrent: rewrite docs/performance.md's generated section from docs/measured first")

func sample(name string) Record {
	return Record{
		Table: Table{Name: name, Title: "What " + name + " costs", Columns: []string{"run", "wall s"},
			Rows: [][]string{{"a|b", "1.5"}}, Notes: []string{"Medians of 3."}},
		Command: "go run ./bench/" + name + " -rounds 3", Date: time.Date(2026, 12, 7, 12, 0, 0, 0, time.UTC),
		Machine: Machine{Cores: 2, OS: "linux/amd64", Go: "go1.26.8"}, LoadBefore: 1.25, LoadAfter: 2,
	}
}

// TestWriteRecordIsReadBack: a written record reads back equal, and its
// markdown names the command, the date, the machine and the load, and
// escapes a cell's bar.
func TestWriteRecordIsReadBack(t *testing.T) {
	dir := t.TempDir()
	md, err := WriteRecord(dir, sample("simcost"))
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Read(dir)
	if err != nil || len(recs) != 1 || recs[0].Rows[0][0] != "a|b" || recs[0].Command != "go run ./bench/simcost -rounds 3" {
		t.Fatalf("read back %+v, %v", recs, err)
	}
	b, _ := os.ReadFile(md)
	for _, want := range []string{"# What simcost costs", "`go run ./bench/simcost -rounds 3`", "2026-12-07 12:00 UTC", "2 cores", "load average 1.2 before, 2.0 after", `| a\|b | 1.5 |`, "- Medians of 3."} {
		if !bytes.Contains(b, []byte(want)) {
			t.Errorf("%s lacks %q:\n%s", md, want, b)
		}
	}
	if _, err := WriteRecord(dir, Record{Table: Table{Name: "../x"}}); err == nil {
		t.Error("a name with a path was written")
	}
}

// TestSyncReplacesOnlyTheGeneratedPart: the page's prose around the
// markers stays; between them, a row per record linking its file (its
// figures are the file's, not repeated); a second sync
// changes nothing; a page without markers is refused.
func TestSyncReplacesOnlyTheGeneratedPart(t *testing.T) {
	dir := t.TempDir()
	measured := filepath.Join(dir, "measured")
	for _, n := range []string{"simcost", "loadcmp"} {
		if _, err := WriteRecord(measured, sample(n)); err != nil {
			t.Fatal(err)
		}
	}
	page := filepath.Join(dir, "performance.md")
	os.WriteFile(page, []byte("# Method\n\nprose\n\n"+Begin+"\nstale\n"+End+"\n\nafter\n"), 0o644)
	changed, err := Sync(page, measured)
	if err != nil || !changed {
		t.Fatalf("sync: changed %v, %v", changed, err)
	}
	b, _ := os.ReadFile(page)
	s := string(b)
	if !strings.HasPrefix(s, "# Method\n\nprose\n\n") || !strings.HasSuffix(s, End+"\n\nafter\n") || strings.Contains(s, "stale") ||
		strings.Index(s, "What loadcmp costs") > strings.Index(s, "What simcost costs") || !strings.Contains(s, "| [simcost](measured/simcost.md) | What simcost costs | 2026-12-07 12:00 UTC | 1.2 to 2.0 |") || strings.Contains(s, "1.5") {
		t.Errorf("synced page:\n%s", s)
	}
	if changed, err := Sync(page, measured); err != nil || changed {
		t.Errorf("a second sync: changed %v, %v", changed, err)
	}
	os.WriteFile(page, []byte("no markers\n"), 0o644)
	if _, err := Sync(page, measured); err == nil {
		t.Error("a page without markers was synced")
	}
}

// TestCommandQuotesWhatAShellWouldSplit: the command line runs again as
// written.
func TestCommandQuotesWhatAShellWouldSplit(t *testing.T) {
	got := command("robustness", []string{"-args", "--cohorts together", "-runs", "5", "-x", "it's"})
	want := `go run ./bench/robustness -args '--cohorts together' -runs 5 -x 'it'\''s'`
	if got != want {
		t.Errorf("command = %s, want %s", got, want)
	}
}

// TestPrintAlignsTheRecordedTable: a bench's closing summary is the table
// it records, every cell of it, with its title and notes.
func TestPrintAlignsTheRecordedTable(t *testing.T) {
	var b bytes.Buffer
	tb := Table{Name: "x", Title: "What x costs", Columns: []string{"tool", "µs/request"},
		Rows: [][]string{{"herdbench", "13.1"}, {"wrk", "12.20"}}, Notes: []string{"Medians of 3."}}
	if err := tb.Print(&b); err != nil {
		t.Fatal(err)
	}
	want := "\nWhat x costs\n\n       tool  µs/request\n  herdbench        13.1\n        wrk       12.20\n\n- Medians of 3.\n"
	if b.String() != want {
		t.Errorf("printed:\n%q\nwant:\n%q", b.String(), want)
	}
}

// TestPerformancePageIsCurrent: docs/performance.md's generated section is
// Section of the files under docs/measured, so a bench run whose files
// were written but not synced (or a hand edit between the markers) fails
// here. Run the bench again, or sync by hand: go test -run
// TestPerformancePageIsCurrent ./bench/internal/measured -sync.
func TestPerformancePageIsCurrent(t *testing.T) {
	docs := filepath.Join("..", "..", "..", "docs")
	page := filepath.Join(docs, "performance.md")
	if *syncPage {
		if _, err := Sync(page, filepath.Join(docs, "measured")); err != nil {
			t.Fatal(err)
		}
	}
	old, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	recs, err := Read(filepath.Join(docs, "measured"))
	if err != nil {
		t.Fatal(err)
	}
	want, err := Splice(old, Section(recs))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(old, want) {
		t.Errorf("docs/performance.md's generated section is not what docs/measured holds (%d records): run the bench again, or go test -run TestPerformancePageIsCurrent ./bench/internal/measured -sync", len(recs))
	}
}

// A table drawn again from kept measurements (a bench's -render) was
// stamped with the redrawing's command, date and load, as if measured
// then: Redraw keeps the stamp of the record it replaces.
func TestRedrawKeepsTheStampOfTheMeasuring(t *testing.T) {
	dir := t.TempDir()
	measured := sample("verdict")
	if _, err := WriteRecord(dir, measured); err != nil {
		t.Fatal(err)
	}
	r := &Recorder{dir: &dir, start: time.Now(), load: 9, args: []string{"-render"}}
	redrawn := measured.Table
	redrawn.Rows = [][]string{{"b", "2"}}
	if _, err := r.Redraw("verdict", redrawn); err != nil {
		t.Fatal(err)
	}
	recs, err := Read(dir)
	if err != nil || len(recs) != 1 {
		t.Fatalf("read back %+v, %v", recs, err)
	}
	got := recs[0]
	if got.Rows[0][0] != "b" || got.Command != measured.Command || !got.Date.Equal(measured.Date) || got.LoadBefore != measured.LoadBefore {
		t.Errorf("redrawn: rows %v, command %q, date %v, load %g; want the new rows under the measuring's stamp (%q, %v, %g)",
			got.Rows, got.Command, got.Date, got.LoadBefore, measured.Command, measured.Date, measured.LoadBefore)
	}
	other := t.TempDir()
	r.dir = &other
	if _, err := r.Redraw("fresh", Table{Name: "fresh", Title: "Fresh"}); err != nil {
		t.Fatal(err)
	}
	if recs, _ := Read(other); len(recs) != 1 || !strings.Contains(recs[0].Command, "-render") {
		t.Errorf("without a record, Redraw writes one as Write does: %+v", recs)
	}
}
