package folder

import (
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/herdbench/herdbench/results"
)

// PointFileNames returns the summary file name of each point of a sweep,
// from its settings: summary-<field>-<value>.json, the fields joined by
// '_', each by its last key (summary-clients-100.json,
// summary-jitter-0.05_for-3s.json), or by its whole path where two swept
// fields end in the same key. What is not a letter, digit, '.', '+' or '-'
// becomes '_'; a point whose name an earlier one has also gets its number.
func PointFileNames(points [][]results.Setting) []string {
	var fields []string
	if len(points) > 0 {
		for _, s := range points[0] {
			fields = append(fields, s.Field)
		}
	}
	short := make([]string, len(fields))
	for i, f := range fields {
		short[i] = lastKey(f)
	}
	for i := range short {
		for j := range short {
			if i != j && lastKey(fields[i]) == lastKey(fields[j]) {
				short[i] = fields[i]
			}
		}
	}
	names := make([]string, len(points))
	seen := map[string]bool{}
	for i, pt := range points {
		parts := make([]string, len(pt))
		for j, s := range pt {
			k := s.Field
			if j < len(short) {
				k = short[j]
			}
			parts[j] = fileSafe(k) + "-" + fileSafe(s.Value)
		}
		name := "summary-" + strings.Join(parts, "_")
		if len(pt) == 0 || seen[name] {
			name += fmt.Sprintf("-point%d", i+1)
		}
		seen[name] = true
		names[i] = name + ".json"
	}
	return names
}

// lastKey returns a field path's last key: "for" for "chaos[crash].for".
func lastKey(path string) string {
	if i := strings.LastIndexByte(path, '.'); i >= 0 {
		path = path[i+1:]
	}
	if i := strings.IndexByte(path, '['); i >= 0 {
		path = path[:i]
	}
	return path
}

func fileSafe(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '+', r == '-':
			return r
		}
		return '_'
	}, s)
}

// WriteSweep writes a sweep's files into dir (created if needed):
// sweep.csv (one row per point and cohort, of the points that finished),
// one summary per point (PointFileNames), including a point an interrupt
// cut short (marked partial), and scenario.yaml. Each file is written
// atomically; the first error stops and is returned.
func WriteSweep(dir string, summaries []*results.Summary, scenario []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	points := make([][]results.Setting, len(summaries))
	for i, s := range summaries {
		points[i] = s.Point
	}
	names := PointFileNames(points)
	var rows []results.SweepRow
	encoded := make([]encoding, len(summaries))
	// Encoding the summaries is most of a sweep's writing (the AWS sweep's
	// 19 points of 500 runs: 0.2 s of CPU while every core but one is
	// idle): a batch of them, one per core, encodes at once, then goes to
	// disk in order, so no more than a batch waits in memory.
	batch := runtime.GOMAXPROCS(0)
	for i, s := range summaries {
		if i%batch == 0 {
			encodeSummaries(summaries[i:min(i+batch, len(summaries))], encoded[i:])
		}
		if !s.Partial {
			for _, r := range s.Runs {
				rows = append(rows, results.SweepRow{Point: s.Point, Clients: s.Clients, Run: r})
			}
		}
		e := encoded[i]
		encoded[i] = encoding{}
		if e.err != nil {
			return fmt.Errorf("results: encoding %s: %w", names[i], e.err)
		}
		if err := WriteFileAtomic(filepath.Join(dir, names[i]), e.data); err != nil {
			return fmt.Errorf("results: writing %s: %w", names[i], err)
		}
	}
	data, err := EncodeSweep(rows)
	if err != nil {
		return fmt.Errorf("results: encoding sweep.csv: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "sweep.csv"), data); err != nil {
		return fmt.Errorf("results: writing sweep.csv: %w", err)
	}
	if err := WriteFileAtomic(filepath.Join(dir, "scenario.yaml"), scenario); err != nil {
		return fmt.Errorf("results: writing scenario.yaml: %w", err)
	}
	return nil
}

// encoding is one summary's EncodeSummary.
type encoding struct {
	data []byte
	err  error
}

// encodeSummaries encodes summaries into out, each on a goroutine of its
// own.
func encodeSummaries(summaries []*results.Summary, out []encoding) {
	var wg sync.WaitGroup
	for i, s := range summaries {
		wg.Go(func() { out[i].data, out[i].err = EncodeSummary(s) })
	}
	wg.Wait()
}

// ErrSweep is wrapped by every problem DecodeSweep finds.
var ErrSweep = errors.New("not a sweep.csv herdbench wrote")

// DecodeSweep reads sweep.csv back: the swept fields (the columns before
// clients), and each row with its point, clients, strategy, repetitions
// and, for each metric with a mean, a Stat of its mean and sd (N is the
// repetitions). Columns it does not know are skipped, so a file with more
// metrics than this herdbench knows still reads.
func DecodeSweep(data []byte) (fields []string, rows []results.SweepRow, err error) {
	r := csv.NewReader(bytes.NewReader(data))
	recs, err := r.ReadAll()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrSweep, err)
	}
	if len(recs) == 0 {
		return nil, nil, fmt.Errorf("%w: it is empty", ErrSweep)
	}
	head := recs[0]
	at := slices.Index(head, "clients")
	if at < 0 || at+2 >= len(head) || head[at+1] != "strategy" || head[at+2] != "runs" {
		return nil, nil, fmt.Errorf("%w: its header lacks clients,strategy,runs", ErrSweep)
	}
	fields = head[:at]
	for i, rec := range recs[1:] {
		line := i + 2
		row := results.SweepRow{Run: results.Run{Strategy: rec[at+1], Stats: map[string]results.Stat{}}}
		for j, f := range fields {
			row.Point = append(row.Point, results.Setting{Field: f, Value: rec[j]})
		}
		if row.Clients, err = strconv.Atoi(rec[at]); err != nil {
			return nil, nil, fmt.Errorf("%w: line %d: clients is not a count", ErrSweep, line)
		}
		runs, err := strconv.Atoi(rec[at+2])
		if err != nil || runs < 1 {
			return nil, nil, fmt.Errorf("%w: line %d: runs is not a count of repetitions", ErrSweep, line)
		}
		for j := at + 3; j+1 < len(head); j++ {
			name, ok := strings.CutSuffix(head[j], "_mean")
			if !ok || head[j+1] != name+"_sd" || rec[j] == "" {
				continue
			}
			mean, err1 := strconv.ParseFloat(rec[j], 64)
			sd, err2 := strconv.ParseFloat(rec[j+1], 64)
			if err1 != nil || err2 != nil || math.IsNaN(mean+sd) || math.IsInf(mean+sd, 0) {
				return nil, nil, fmt.Errorf("%w: line %d: %s_mean and %s_sd are not numbers", ErrSweep, line, name, name)
			}
			row.Run.Stats[name] = results.Stat{N: runs, Mean: mean, SD: sd}
		}
		rows = append(rows, row)
	}
	return fields, rows, nil
}

// EncodeSweep returns sweep.csv: one row per point and strategy, with the
// value of each swept field (a column each, named by its path), the
// clients per cohort, the number of repetitions and, for every RepStats
// metric in the table's order, its mean and standard deviation (empty
// where the cohort has no such figure; a metric that only some strategies
// have, Metric.Omit, only when some row has it). Every row has the first
// row's swept fields.
func EncodeSweep(rows []results.SweepRow) ([]byte, error) {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var head []string
	if len(rows) > 0 {
		for _, st := range rows[0].Point {
			head = append(head, st.Field)
		}
	}
	head = append(head, "clients", "strategy", "runs")
	metrics := sweepMetrics(rows)
	for _, m := range metrics {
		head = append(head, m.Name+"_mean", m.Name+"_sd")
	}
	_ = w.Write(head)
	f := func(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }
	for _, r := range rows {
		n := 1
		for _, st := range r.Run.Stats {
			n = len(st.Values)
			break
		}
		var rec []string
		for _, st := range r.Point {
			rec = append(rec, st.Value)
		}
		rec = append(rec, strconv.Itoa(r.Clients), r.Run.Strategy, strconv.Itoa(n))
		for _, m := range metrics {
			st, ok := r.Run.Stats[m.Name]
			if !ok {
				if v, has := m.Value(&r.Run); has && r.Run.Stats == nil {
					rec = append(rec, f(v), "0")
				} else {
					rec = append(rec, "", "")
				}
				continue
			}
			rec = append(rec, f(st.Mean), f(st.SD))
		}
		_ = w.Write(rec)
	}
	w.Flush()
	return buf.Bytes(), w.Error()
}

// sweepMetrics are the metrics sweep.csv writes for rows: every RepStats
// one, but one that only some strategies have (Metric.Omit) and no row
// has.
func sweepMetrics(rows []results.SweepRow) []results.Metric {
	var out []results.Metric
	for _, m := range results.StatMetrics() {
		has := !m.Omit
		for i := 0; i < len(rows) && !has; i++ {
			_, stat := rows[i].Run.Stats[m.Name]
			_, value := m.Value(&rows[i].Run)
			has = stat || value
		}
		if has {
			out = append(out, m)
		}
	}
	return out
}
