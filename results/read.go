package results

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"
)

// ErrTimeline marks a timeline CSV that could not be read.
var ErrTimeline = errors.New("bad timeline CSV")

// DecodeSummary reads summary.json.
func DecodeSummary(data []byte) (*Summary, error) {
	var s Summary
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
func DecodeTimeline(data []byte) (names []string, timelines []Timeline, err error) {
	return decodeTimeline(data, "strategy")
}

// decodeTimeline reads a timeline CSV whose rows are keyed by the column
// key, and also by the column sub when it is not "" (the key of a row is
// then key + "\x00" + sub).
func decodeTimeline(data []byte, key string, sub ...string) (names []string, timelines []Timeline, err error) {
	r := csv.NewReader(bytes.NewReader(data))
	r.ReuseRecord = true
	head, err := r.Read()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: header: %v", ErrTimeline, err)
	}
	col := map[string]int{}
	for i, h := range head {
		col[h] = i
	}
	ci, okC := col[key]
	ti, okT := col["t_s"]
	if !okC || !okT {
		return nil, nil, fmt.Errorf("%w: the header lacks %s or t_s: %q", ErrTimeline, key, head)
	}
	si := -1
	for _, k := range sub {
		var ok bool
		if si, ok = col[k]; !ok {
			return nil, nil, fmt.Errorf("%w: the header lacks %s: %q", ErrTimeline, k, head)
		}
	}
	series := make([]int, NumSeries) // column of each series, -1 if absent
	for s := range series {
		series[s] = -1
		if i, ok := col[Series(s).String()]; ok {
			series[s] = i
		}
	}
	index := map[string]int{}
	var starts [][]float64
	for line := 2; ; line++ {
		rec, err := r.Read()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, nil, fmt.Errorf("%w: %v", ErrTimeline, err)
		}
		name := rec[ci]
		if si >= 0 {
			name += "\x00" + rec[si]
		}
		k, ok := index[name]
		if !ok {
			k = len(names)
			index[name] = k
			names = append(names, name)
			timelines = append(timelines, Timeline{})
			starts = append(starts, nil)
		}
		t, err := strconv.ParseFloat(rec[ti], 64)
		if err != nil {
			return nil, nil, fmt.Errorf("%w: line %d: t_s %q: %v", ErrTimeline, line, rec[ti], err)
		}
		starts[k] = append(starts[k], t)
		var row [NumSeries]int64
		for s, i := range series {
			if i < 0 {
				continue
			}
			if row[s], err = strconv.ParseInt(rec[i], 10, 64); err != nil {
				return nil, nil, fmt.Errorf("%w: line %d: %s %q: %v", ErrTimeline, line, head[i], rec[i], err)
			}
		}
		timelines[k].Rows = append(timelines[k].Rows, row)
	}
	for k := range timelines {
		timelines[k].Resolution = Bucket
		if st := starts[k]; len(st) > 1 {
			// t_s has two decimals: round the step to whole milliseconds.
			timelines[k].Resolution = time.Duration(math.Round((st[1]-st[0])*1000)) * time.Millisecond
		}
		if timelines[k].Resolution <= 0 {
			return nil, nil, fmt.Errorf("%w: cohort %s: rows do not advance in time", ErrTimeline, names[k])
		}
	}
	return names, timelines, nil
}
