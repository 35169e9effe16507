package doccheck

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A dated figure: a date, a time of day or a load average, in prose.
// ("load" alone is left out: it is a figure of the model too, attempts per
// request; the machine's is its load average, or "at load N".)
var dated = regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}\b|\b(?:[01]\d|2[0-3]):[0-5]\d\b|(?i:\bload average(?: of| was| is)? \d|\b(?:at|\() ?load \d)`)

// A figure in a measurement unit: a duration too small to configure, a
// size, a multiplier, seconds of CPU. The number is the first group that
// matched.
var measuredUnit = regexp.MustCompile(`(\d[\d,]*(?:\.\d+)?)\s?(?:ns|µs|us|KB|MB|GB|KiB|MiB|GiB)\b` +
	`|(\d[\d,]*(?:\.\d+)?)\s?×|(\d[\d,]*(?:\.\d+)?)x\b` +
	`|(\d[\d,]*(?:\.\d+)?)\s?(?:s|seconds?|CPU-s) (?:of )?CPU|\bCPU(?: time)?(?: of)? (\d[\d,]*(?:\.\d+)?)\s?s\b` +
	`|(\d[\d,]*(?:\.\d+)?)\s?CPU[- ]s(?:econds)?\b`)

// A link to a generated file.
var measuredLink = regexp.MustCompile(`measured/([\w-]+)\.(?:md|json)\b`)

var number = regexp.MustCompile(`\d[\d,]*(?:\.\d+)?`)

// backing returns the numbers a generated file's data holds (its rows and
// notes), commas left out; nil if there is no such file.
func backing(t *testing.T, name string) map[string]bool {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, "docs", "measured", name+".json"))
	if err != nil {
		return nil
	}
	var rec struct {
		Rows  [][]string `json:"rows"`
		Notes []string   `json:"notes"`
	}
	if err := json.Unmarshal(b, &rec); err != nil {
		t.Fatalf("docs/measured/%s.json: %v", name, err)
	}
	nums := map[string]bool{}
	cells := rec.Notes
	for _, r := range rec.Rows {
		cells = append(cells, r...)
	}
	for _, c := range cells {
		for _, n := range number.FindAllString(c, -1) {
			nums[strings.ReplaceAll(n, ",", "")] = true
		}
	}
	return nums
}

// unbacked returns the problems of one line of prose: its dated figures,
// and its figures in a measurement unit that no generated file it links
// holds.
func unbacked(line string, backs func(name string) map[string]bool) []string {
	var out []string
	for _, d := range dated.FindAllString(line, -1) {
		out = append(out, "a dated figure ("+d+"): the generated files carry the date")
	}
	var linked []map[string]bool
	for _, m := range measuredLink.FindAllStringSubmatch(line, -1) {
		linked = append(linked, backs(m[1]))
	}
	for _, at := range measuredUnit.FindAllStringSubmatchIndex(line, -1) {
		m := make([]string, len(at)/2)
		for i := range m {
			if at[2*i] >= 0 {
				m[i] = line[at[2*i]:at[2*i+1]]
			}
		}
		if strings.HasSuffix(m[0], "×") && regexp.MustCompile(`^\s*[\d(]`).MatchString(line[at[1]:]) {
			continue // arithmetic of values (4 × 4 × 4 = 64, 0.1 × (1 − p)), not a ratio
		}
		if quoted(line, at[0]) {
			continue // a source's own words ("just 1.1x"), not a figure measured here
		}
		n := ""
		for _, g := range m[1:] {
			if g != "" {
				n = strings.ReplaceAll(g, ",", "")
				break
			}
		}
		held := false
		for _, l := range linked {
			held = held || l[n]
		}
		if !held {
			out = append(out, "a measured figure ("+m[0]+") that no linked docs/measured file holds: link the file whose data holds it, or write a value the user sets as code")
		}
	}
	return out
}

// quoted says whether position i of line is inside a quotation: after an
// odd number of straight or curly double quotes.
func quoted(line string, i int) bool {
	return (strings.Count(line[:i], `"`)+strings.Count(line[:i], "“")+strings.Count(line[:i], "”"))%2 == 1
}

// TestNoUnbackedFigures holds the pages to the rule of docs/performance.md
// ("Figures in prose"): outside code and the generated section, no dated
// figure, and no figure in a measurement unit unless the line links a
// file under docs/measured whose data holds that number.
func TestNoUnbackedFigures(t *testing.T) {
	cache := map[string]map[string]bool{}
	backs := func(name string) map[string]bool {
		if _, ok := cache[name]; !ok {
			cache[name] = backing(t, name)
		}
		return cache[name]
	}
	for _, p := range pages(t) {
		if strings.HasPrefix(p.path, "docs/measured/") {
			continue
		}
		for i, l := range prose(p.lines) {
			for _, problem := range unbacked(l, backs) {
				t.Errorf("%s:%d: %s", p.path, i+1, problem)
			}
		}
	}
}

// TestUnbackedCatchesWhatTheRuleNames: each kind the rule names is caught,
// a linked file's number passes, values in words or code do not count.
func TestUnbackedCatchesWhatTheRuleNames(t *testing.T) {
	backs := func(name string) map[string]bool {
		if name == "loadcmp" {
			return map[string]bool{"7.8": true, "1035": true}
		}
		return nil
	}
	for line, want := range map[string]int{
		"measured on 2026-12-02":                            1,
		"from 14:32 to 14:34":                               2,
		"at load 3.1, then load average 4":                  2,
		"retries at 50%: load 1.84 to 1.91":                 0,
		`a load "somewhere just below 3X", "just 1.1x"`:     0,
		"0.1 × (1 − p) − p per attempt":                     0,
		"herdbench 7.8 µs a request":                        1,
		"herdbench 7.8 µs ([loadcmp](measured/loadcmp.md))": 0,
		"peak 1,035 MiB (measured/loadcmp.md)":              0,
		"peak 1,036 MiB (measured/loadcmp.md)":              1,
		"0.95x main's, 1.3 × wrk and 12 ns":                 3,
		"14.4 s of CPU, CPU time 3 s, 100 CPU-s":            3,
		"at least five times full jitter's, 10 ms":          0,
		"a 2 s outage, 500 clients, p99 within 5 ms":        0,
		"twice as many users":                               0,
	} {
		if got := unbacked(line, backs); len(got) != want {
			t.Errorf("%q: %d problems, want %d: %q", line, len(got), want, got)
		}
	}
}
