package folder

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

// sweep.csv has a column per swept field, before clients, strategy and
// runs; DecodeSweep reads back every point, strategy and mean ± sd.
func TestSweepCSVHasAColumnPerSweptField(t *testing.T) {
	a := results.Aggregate([]results.Run{{Strategy: "full", Requests: 10, Attempts: 40, HerdFactor: 2}, {Strategy: "full", Requests: 10, Attempts: 44, HerdFactor: 4}})
	b := results.Run{Strategy: "none", Requests: 10, Attempts: 90, HerdFactor: 30} // a single repetition: no Stats
	rows := []results.SweepRow{
		{Point: resultstest.Point("workload.clients", "10", "chaos[crash].for", "1s"), Clients: 10, Run: a},
		{Point: resultstest.Point("workload.clients", "10", "chaos[crash].for", "1s"), Clients: 10, Run: b},
		{Point: resultstest.Point("workload.clients", "20", "chaos[crash].for", "1s"), Clients: 20, Run: a},
	}
	data, err := EncodeSweep(rows)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(string(data), "\n")
	if !strings.HasPrefix(lines[0], "workload.clients,chaos[crash].for,clients,strategy,runs,requests_mean,requests_sd,") {
		t.Errorf("header %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "10,1s,10,full,2,10,0,") || !strings.HasPrefix(lines[2], "10,1s,10,none,1,10,0,") {
		t.Errorf("rows %q", lines[1:3])
	}
	fields, back, err := DecodeSweep(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(fields, []string{"workload.clients", "chaos[crash].for"}) || len(back) != 3 {
		t.Fatalf("fields %q, %d rows", fields, len(back))
	}
	if r := back[0]; r.Clients != 10 || r.Run.Strategy != "full" || !reflect.DeepEqual(r.Run.Stats["attempts"], results.Stat{N: 2, Mean: 42, SD: 2.828427}) || r.Run.Stats["herd_factor"].Mean != 3 {
		t.Errorf("row 0: %+v", r)
	}
	if _, ok := back[0].Run.Stats["recovery_s"]; ok {
		t.Error("a figure no repetition had reads back as present")
	}
	if r := back[2]; !reflect.DeepEqual(r.Point, rows[2].Point) || r.Run.Stats["herd_factor"].Mean != 3 {
		t.Errorf("row 2: %+v", r)
	}
	// A run without a sweep has no field columns: the header starts as
	// it always did.
	plain, _ := EncodeSweep([]results.SweepRow{{Clients: 5, Run: b}})
	if !bytes.HasPrefix(plain, []byte("clients,strategy,runs,")) {
		t.Errorf("no swept fields: %q", plain[:40])
	}
	for _, bad := range []string{"", "a,b\n1,2\n", "clients,strategy,runs,x_mean,x_sd\n5,a,1,NaN,0\n", "clients,strategy,runs\nmany,a,1\n", "clients,strategy,runs\n5,a,0\n"} {
		if _, _, err := DecodeSweep([]byte(bad)); !errors.Is(err, ErrSweep) {
			t.Errorf("DecodeSweep(%q) = %v, want ErrSweep", bad, err)
		}
	}
}

func TestPointFileNames(t *testing.T) {
	for _, c := range []struct {
		points [][]results.Setting
		want   []string
	}{
		{[][]results.Setting{resultstest.Point("workload.clients", "100"), resultstest.Point("workload.clients", "200")}, []string{"summary-clients-100.json", "summary-clients-200.json"}},
		{[][]results.Setting{resultstest.Point("strategies[0].jitter", "0.05", "chaos[crash].for", "3s")}, []string{"summary-jitter-0.05_for-3s.json"}},
		// Two fields ending in the same key: their whole paths.
		{[][]results.Setting{resultstest.Point("chaos[0].for", "1s", "chaos[1].for", "2s")}, []string{"summary-chaos_0_.for-1s_chaos_1_.for-2s.json"}},
		// Values that are not file-safe, and two that become the same.
		{[][]results.Setting{resultstest.Point("target.service_time", "normal(10ms, 2ms)"), resultstest.Point("target.service_time", "normal(10ms,_2ms)")},
			[]string{"summary-service_time-normal_10ms__2ms_.json", "summary-service_time-normal_10ms__2ms_-point2.json"}},
	} {
		if got := PointFileNames(c.points); !reflect.DeepEqual(got, c.want) {
			t.Errorf("PointFileNames(%v) = %q, want %q", c.points, got, c.want)
		}
	}
}

// WriteSweep keeps a point an interrupt cut short as its summary (marked
// partial), but not in sweep.csv, whose figures are of whole points.
func TestWriteSweepLeavesAPartialPointOutOfTheCSV(t *testing.T) {
	dir := t.TempDir()
	done := &results.Summary{Scenario: "s", Mode: "sim", Clients: 10, Point: resultstest.Point("workload.clients", "10"), Runs: []results.Run{{Strategy: "a", Requests: 5}}}
	cut := &results.Summary{Scenario: "s", Mode: "sim", Clients: 20, Point: resultstest.Point("workload.clients", "20"), Partial: true, Runs: []results.Run{{Strategy: "a", Requests: 2}}}
	if err := WriteSweep(dir, []*results.Summary{done, cut}, []byte("name: s\n")); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"summary-clients-10.json", "summary-clients-20.json", "scenario.yaml"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Error(err)
		}
	}
	data, _ := os.ReadFile(filepath.Join(dir, "sweep.csv"))
	if _, rows, err := DecodeSweep(data); err != nil || len(rows) != 1 || rows[0].Point[0].Value != "10" {
		t.Errorf("sweep.csv: %d rows, %v:\n%s", len(rows), err, data)
	}
}

func TestAggregateAndSweep(t *testing.T) {
	calls := func(n int64) *int64 { return &n }
	reps := []results.Run{
		{Strategy: "full", Requests: 10, Succeeded: 10, Attempts: 40, Calls: calls(40), CompletionS: new(0.5)},
		{Strategy: "full", Requests: 10, Succeeded: 10, Attempts: 44, Calls: calls(44)},
	}
	a := results.Aggregate(reps)
	if a.Attempts != 40 || a.Stats["calls"].Mean != 42 || a.Stats["completion_s"].N != 1 || a.Stats["recovery_s"].N != 0 {
		t.Fatalf("%+v", a.Stats)
	}
	if _, ok := a.Stats["peak_calls_per_10ms"]; ok {
		t.Fatal("a metric no repetition has should be absent")
	}
	b, err := EncodeSweep([]results.SweepRow{{Clients: 10, Run: a}})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(string(b)), "\n")
	head, row := strings.Split(lines[0], ","), strings.Split(lines[1], ",")
	if len(lines) != 2 || len(head) != len(row) || head[0] != "clients" || row[2] != "2" {
		t.Fatalf("%q", b)
	}
	for i, h := range head {
		want := map[string]string{"calls_mean": "42", "calls_sd": "2.828427", "attempts_mean": "42", "peak_calls_per_10ms_mean": ""}[h]
		if want != "" || h == "peak_calls_per_10ms_mean" {
			if row[i] != want {
				t.Errorf("%s = %q, want %q", h, row[i], want)
			}
		}
	}
}
