package folder

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/results"
)

// ErrTimeline marks a timeline CSV that could not be read.
var ErrTimeline = errors.New("bad timeline CSV")

// DecodeSummary reads summary.json.
func DecodeSummary(data []byte) (*results.Summary, error) {
	var s results.Summary
	if err := json.Unmarshal(data, &s); err != nil {
		return nil, err
	}
	return &s, nil
}

// DecodeTimeline reads a timeline CSV written by EncodeTimeline: the cohort
// names in order of appearance and one Timeline per cohort. Columns are found
// by name, so a file with more series than this version knows still reads
// (unknown columns are skipped) and a missing series reads as zeros. The
// resolution is the step between a cohort's first two rows (Bucket if it
// has one row).
func DecodeTimeline(data []byte) (names []string, timelines []results.Timeline, err error) {
	return ReadTimeline(bytes.NewReader(data), TimelineBounds{})
}

// TimelineBounds bound what ReadTimeline keeps of a timeline CSV. They are
// checked row by row, so a file with more than a run can have is refused
// at the first row too many, before its rows fill memory. A zero field is
// no bound.
type TimelineBounds struct {
	// Keys is the most distinct keys (cohorts; for the tiers' file,
	// cohort and tier pairs).
	Keys int
	// Rows is the most rows of each key: the 10 ms buckets of the run
	// (TimelineBuckets).
	Rows int
	// DurationS is the run's duration, for the messages.
	DurationS float64
	// Bin, a multiple of the rows' 10 ms, sums each key's consecutive rows
	// into rows of Bin as they are read: a reader that draws a long run at
	// a coarser step (a report) keeps only those, never every 10 ms row.
	// Zero keeps every row.
	Bin time.Duration
}

// per is how many rows of the file make one row kept.
func (b TimelineBounds) per() int {
	return max(1, int(b.Bin/results.Bucket))
}

// TimelineBuckets is the most rows of 10 ms a cohort's timeline of a run of
// durationS seconds has: its buckets, and the one its end falls in.
func TimelineBuckets(durationS float64) int {
	return int(math.Ceil(durationS*float64(time.Second)/float64(results.Bucket))) + 1
}

// ReadTimeline reads a timeline CSV like DecodeTimeline, row by row from r
// (the file is never held whole), refusing what breaks b at the row that
// breaks it.
func ReadTimeline(r io.Reader, b TimelineBounds) (names []string, timelines []results.Timeline, err error) {
	return readTimeline(r, b, "strategy")
}

// readTimeline reads a timeline CSV whose rows are keyed by the column
// key, and also by the column sub when it is not "" (the key of a row is
// then key + "\x00" + sub).
//
// A file it can read twice (an io.Seeker: a file, bytes in memory) it
// reads twice: first counting each key's rows, checking the bounds, then
// keeping the rows in slices of their exact size. Slices grown row by row
// would take up to twice the memory, and leave as much again for the
// collector, while a timeline is the largest thing a report holds.
func readTimeline(in io.Reader, b TimelineBounds, key string, sub ...string) (names []string, timelines []results.Timeline, err error) {
	var sizes []int
	if rs, ok := in.(io.ReadSeeker); ok {
		if _, _, sizes, err = scanTimeline(rs, b, nil, true, key, sub); err != nil {
			return nil, nil, err
		}
		if _, err := rs.Seek(0, io.SeekStart); err != nil {
			return nil, nil, err
		}
		for k := range sizes {
			sizes[k] = (sizes[k] + b.per() - 1) / b.per() // the rows kept, binned
		}
	}
	names, timelines, _, err = scanTimeline(in, b, sizes, false, key, sub)
	return names, timelines, err
}

// scanTimeline is one pass of readTimeline over in: with count, only each
// key's rows are counted (and the bounds checked); otherwise the rows are
// kept, each key's in a slice of sizes[k] rows to begin with.
func scanTimeline(in io.Reader, b TimelineBounds, sizes []int, count bool, key string, sub []string) (names []string, timelines []results.Timeline, counts []int, err error) {
	r := csv.NewReader(bufio.NewReaderSize(in, 64<<10))
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: header: %w", ErrTimeline, err)
	}
	head = slices.Clone(head) // ReuseRecord: the next Read overwrites it
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	ci, okC := col[key]
	ti, okT := col["t_s"]
	if !okC || !okT {
		return nil, nil, nil, fmt.Errorf("%w: line 1, the header, lacks %s or t_s", ErrTimeline, key)
	}
	si := -1
	for _, k := range sub {
		var ok bool
		if si, ok = col[k]; !ok {
			return nil, nil, nil, fmt.Errorf("%w: line 1, the header, lacks %s", ErrTimeline, k)
		}
	}
	series := make([]int, results.NumSeries) // column of each series, -1 if absent
	for s := range series {
		series[s] = -1
		if i, ok := col[results.Series(s).String()]; ok {
			series[s] = i
		}
	}
	index := map[string]int{}
	// The first two start times of each key: the step between them is
	// its resolution.
	var starts [][2]float64
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			var pe *csv.ParseError
			if errors.As(err, &pe) {
				return nil, nil, nil, fmt.Errorf("%w: %v", ErrTimeline, err)
			}
			return nil, nil, nil, err // the reader's own: too large, interrupted
		}
		name := rec[ci]
		if si >= 0 {
			name += "\x00" + rec[si]
		}
		k, ok := index[name]
		if !ok {
			if b.Keys > 0 && len(names) >= b.Keys {
				return nil, nil, nil, fmt.Errorf("%w: line %d: more than the %s of the run's summary.json", ErrTimeline, line, spoken.Count(b.Keys, "cohort", "cohorts"))
			}
			k = len(names)
			index[name] = k
			names = append(names, strings.Clone(name))
			var tl results.Timeline
			if k < len(sizes) && !count {
				tl.Rows = make([][results.NumSeries]int64, 0, sizes[k])
			}
			timelines = append(timelines, tl)
			starts = append(starts, [2]float64{})
			counts = append(counts, 0)
		}
		n := counts[k]
		counts[k]++
		if b.Rows > 0 && n >= b.Rows {
			return nil, nil, nil, fmt.Errorf("%w: line %d: cohort %s: more than the %d rows of 10 ms of a %g s run", ErrTimeline, line, strings.ReplaceAll(name, "\x00", " tier "), b.Rows, b.DurationS)
		}
		if count {
			continue
		}
		t, err := strconv.ParseFloat(rec[ti], 64)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%w: line %d: t_s is not a number", ErrTimeline, line)
		}
		if n < 2 {
			starts[k][n] = t
		}
		if n%b.per() == 0 { // the first row of a bin kept
			timelines[k].Rows = append(timelines[k].Rows, [results.NumSeries]int64{})
		}
		if err := addRow(&timelines[k].Rows[len(timelines[k].Rows)-1], rec, series, head, line); err != nil {
			return nil, nil, nil, err
		}
	}
	if count {
		return names, nil, counts, nil
	}
	if err := setResolutions(timelines, names, counts, starts, b.per()); err != nil {
		return nil, nil, nil, err
	}
	return names, timelines, counts, nil
}

// addRow adds the counts of record rec (line line of the file, whose
// header is head) to row: series s from column series[s], if any.
func addRow(row *[results.NumSeries]int64, rec []string, series []int, head []string, line int) error {
	for s, i := range series {
		if i < 0 {
			continue
		}
		v, err := strconv.ParseInt(rec[i], 10, 64)
		if err != nil {
			return fmt.Errorf("%w: line %d: %s is not a whole number", ErrTimeline, line, head[i])
		}
		row[s] += v
	}
	return nil
}

// setResolutions sets each timeline's resolution: the step between its
// key's first two rows (starts; counts of them in the file), times per
// rows summed into each kept.
func setResolutions(timelines []results.Timeline, names []string, counts []int, starts [][2]float64, per int) error {
	for k := range timelines {
		timelines[k].Resolution = results.Bucket
		if counts[k] > 1 {
			// t_s has two decimals: round the step to whole milliseconds.
			st := starts[k]
			timelines[k].Resolution = time.Duration(math.Round((st[1]-st[0])*1000)) * time.Millisecond
		}
		timelines[k].Resolution *= time.Duration(per)
		if timelines[k].Resolution <= 0 {
			return fmt.Errorf("%w: cohort %s: rows do not advance in time", ErrTimeline, names[k])
		}
	}
	return nil
}
