package measured

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
)

// The markers around the generated part of a page (docs/performance.md):
// what lies between them is Section's output, nothing else.
const (
	Begin = "<!-- measured:begin (generated from docs/measured/*.json; do not edit) -->"
	End   = "<!-- measured:end -->"
)

// Read returns every record in dir, by name.
func Read(dir string) ([]Record, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	sort.Strings(paths)
	var recs []Record
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		var r Record
		if err := json.Unmarshal(b, &r); err != nil {
			return nil, fmt.Errorf("%s: %w", p, err)
		}
		recs = append(recs, r)
	}
	return recs, nil
}

// Section renders the current figures of recs as one table: a row per
// generated file, linked (relative to a page in docs/), its title, when it
// was measured and at what load; the file names the command.
// The figures themselves are in the files: a page that repeated them would
// be as long again.
func Section(recs []Record) []byte {
	var b bytes.Buffer
	b.WriteString(Begin + "\n\n")
	rows := make([][]string, 0, len(recs))
	for _, r := range recs {
		rows = append(rows, []string{fmt.Sprintf("[%s](measured/%s.md)", r.Name, r.Name), r.Title,
			r.Date.UTC().Format("2006-01-02 15:04") + " UTC", fmt.Sprintf("%.1f to %.1f", r.LoadBefore, r.LoadAfter)})
	}
	table(&b, []string{"file", "figures", "measured", "load"}, rows)
	b.WriteString("\n" + End + "\n")
	return b.Bytes()
}

// Sync rewrites the generated part of page from the records in dir, and
// reports whether it changed. A page without the markers is an error.
func Sync(page, dir string) (bool, error) {
	old, err := os.ReadFile(page)
	if err != nil {
		return false, err
	}
	recs, err := Read(dir)
	if err != nil {
		return false, err
	}
	updated, err := Splice(old, Section(recs))
	if err != nil {
		return false, fmt.Errorf("%s: %w", page, err)
	}
	if bytes.Equal(updated, old) {
		return false, nil
	}
	return true, writeAtomic(page, updated)
}

// Splice returns page with what lies between its markers (the markers
// included) replaced by section.
func Splice(page, section []byte) ([]byte, error) {
	i := bytes.Index(page, []byte(Begin))
	j := bytes.Index(page, []byte(End))
	if i < 0 || j < i {
		return nil, fmt.Errorf("no %q ... %q markers", Begin, End)
	}
	j += len(End)
	if j < len(page) && page[j] == '\n' {
		j++
	}
	out := append([]byte{}, page[:i]...)
	out = append(out, section...)
	return append(out, page[j:]...), nil
}
