package results

import (
	"fmt"
	"os"
	"path/filepath"
)

// SweepFileName returns the summary file name of one point of a sweep.
func SweepFileName(clients int) string { return fmt.Sprintf("summary-clients-%d.json", clients) }

// WriteSweep writes a sweep's files into dir (created if needed):
// sweep.csv (one row per client count and cohort), one summary per client
// count (summary-clients-N.json) and scenario.yaml. Each file is written
// atomically; the first error stops and is returned.
func WriteSweep(dir string, summaries []*Summary, scenario []byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("results: %w", err)
	}
	var rows []SweepRow
	for _, s := range summaries {
		for _, r := range s.Runs {
			rows = append(rows, SweepRow{Clients: s.Clients, Run: r})
		}
		data, err := EncodeSummary(s)
		if err != nil {
			return fmt.Errorf("results: encoding %s: %w", SweepFileName(s.Clients), err)
		}
		if err := WriteFileAtomic(filepath.Join(dir, SweepFileName(s.Clients)), data); err != nil {
			return fmt.Errorf("results: writing %s: %w", SweepFileName(s.Clients), err)
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
