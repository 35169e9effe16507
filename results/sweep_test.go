package results

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

func pt(kv ...string) []Setting {
	var out []Setting
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, Setting{Field: kv[i], Value: kv[i+1]})
	}
	return out
}

// sweep.csv has a column per swept field, before clients, strategy and
// runs; DecodeSweep reads back every point, strategy and mean ± sd.
func TestSweepCSVHasAColumnPerSweptField(t *testing.T) {
	a := Aggregate([]Run{{Strategy: "full", Requests: 10, Attempts: 40, HerdFactor: 2}, {Strategy: "full", Requests: 10, Attempts: 44, HerdFactor: 4}})
	b := Run{Strategy: "none", Requests: 10, Attempts: 90, HerdFactor: 30} // a single repetition: no Stats
	rows := []SweepRow{
		{Point: pt("workload.clients", "10", "chaos[crash].for", "1s"), Clients: 10, Run: a},
		{Point: pt("workload.clients", "10", "chaos[crash].for", "1s"), Clients: 10, Run: b},
		{Point: pt("workload.clients", "20", "chaos[crash].for", "1s"), Clients: 20, Run: a},
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
	if r := back[0]; r.Clients != 10 || r.Run.Strategy != "full" || !reflect.DeepEqual(r.Run.Stats["attempts"], Stat{N: 2, Mean: 42, SD: 2.828427}) || r.Run.Stats["herd_factor"].Mean != 3 {
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
	plain, _ := EncodeSweep([]SweepRow{{Clients: 5, Run: b}})
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
		points [][]Setting
		want   []string
	}{
		{[][]Setting{pt("workload.clients", "100"), pt("workload.clients", "200")}, []string{"summary-clients-100.json", "summary-clients-200.json"}},
		{[][]Setting{pt("strategies[0].jitter", "0.05", "chaos[crash].for", "3s")}, []string{"summary-jitter-0.05_for-3s.json"}},
		// Two fields ending in the same key: their whole paths.
		{[][]Setting{pt("chaos[0].for", "1s", "chaos[1].for", "2s")}, []string{"summary-chaos_0_.for-1s_chaos_1_.for-2s.json"}},
		// Values that are not file-safe, and two that become the same.
		{[][]Setting{pt("target.service_time", "normal(10ms, 2ms)"), pt("target.service_time", "normal(10ms,_2ms)")},
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
	done := &Summary{Scenario: "s", Mode: "sim", Clients: 10, Point: pt("workload.clients", "10"), Runs: []Run{{Strategy: "a", Requests: 5}}}
	cut := &Summary{Scenario: "s", Mode: "sim", Clients: 20, Point: pt("workload.clients", "20"), Partial: true, Runs: []Run{{Strategy: "a", Requests: 2}}}
	if err := WriteSweep(dir, []*Summary{done, cut}, []byte("name: s\n")); err != nil {
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

func TestStatsTableOfASweep(t *testing.T) {
	var buf bytes.Buffer
	s := func(v string, herd float64) *Summary {
		return &Summary{Point: pt("strategies[0].jitter", v), Runs: []Run{{Strategy: "j", Requests: 10, Attempts: 12, HerdFactor: herd}}}
	}
	if err := RenderStatsTable(&buf, []*Summary{s("0", 135.7), s("1", 2.7)}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(buf.String(), "\n")
	head, last := strings.Fields(lines[0]), strings.Fields(lines[2])
	if head[0] != "strategies[0].jitter" || head[1] != "strategy" || !strings.Contains(lines[1], "135.7") || last[0] != "1" || last[1] != "j" {
		t.Errorf("table:\n%s", buf.String())
	}
	if strings.Contains(lines[0], "failed after fault") {
		t.Errorf("a run without faults shows failed after fault:\n%s", buf.String())
	}

	// With faults, the attempts that failed after them have a column.
	buf.Reset()
	faulty := func(v string, failed int64) *Summary {
		return &Summary{Point: pt("strategies[0].jitter", v), Faults: []FaultWindow{{Name: "crash"}},
			Runs: []Run{{Strategy: "j", Requests: 10, Attempts: 12, FailedAfterFault: failed}}}
	}
	if err := RenderStatsTable(&buf, []*Summary{faulty("0.1", 216), faulty("1", 0)}); err != nil {
		t.Fatal(err)
	}
	if lines := strings.Split(buf.String(), "\n"); !strings.Contains(lines[0], "failed after fault") || !strings.Contains(lines[1], "216.0") {
		t.Errorf("table with faults:\n%s", buf.String())
	}
}
