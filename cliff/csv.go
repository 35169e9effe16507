package cliff

import (
	"bytes"
	"encoding/csv"
	"strconv"
)

// EncodeProbes returns probes.csv: one row per run of the search, in the
// order they were made: the strategy, the values of the varied fields,
// the seed (its repetition, and the seed itself by runSeed), whether it
// collapsed, its recovery_s and its success during the fault (empty when
// null).
func EncodeProbes(sp Spec, rs []Result, runSeed func(rep int) uint64) ([]byte, error) {
	var b bytes.Buffer
	w := csv.NewWriter(&b)
	head := []string{"strategy", sp.X.Path}
	if sp.Y != nil {
		head = append(head, sp.Y.Path)
	}
	head = append(head, "rep", "seed", "collapsed", "recovery_s", "success_during_fault")
	if err := w.Write(head); err != nil {
		return nil, err
	}
	num := func(v *float64) string {
		if v == nil {
			return ""
		}
		return strconv.FormatFloat(*v, 'f', -1, 64)
	}
	for _, r := range rs {
		row := []string{sp.Strategies[r.Strategy], sp.X.Text(r.X)}
		if sp.Y != nil {
			row = append(row, sp.Y.Text(r.Y))
		}
		row = append(row, strconv.Itoa(r.Seed), strconv.FormatUint(runSeed(r.Seed), 10), strconv.FormatBool(r.Collapsed), num(r.RecoveryS), num(r.DuringFault))
		if err := w.Write(row); err != nil {
			return nil, err
		}
	}
	w.Flush()
	return b.Bytes(), w.Error()
}
