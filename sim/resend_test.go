package sim_test

import (
	"fmt"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

// A net/http client (transport: net/http) re-sends, once and at once, the
// attempt a crash resets on its reused connection; the re-send meets the
// outage on a new connection and is not re-sent again. herdbench's own
// transport sends it once. Only the transport differs.
func TestNetHTTPResendsAtACrash(t *testing.T) {
	const src = `
name: t
duration: 5s
chaos:
  - {kind: blip, mode: blackhole, at: 500ms, for: 1s}
  - {kind: outage, mode: %s, at: 1500ms, for: 1s}
target: {service_time: 0s}
workload: {kind: closed, clients: 1, think: 400ms}
strategies: [{name: c, backoff: constant, base: 2s, max_attempts: 2, timeout: 3s%s}]
`
	for _, mode := range []string{"refuse", "reset"} {
		_, rawRec, raw := simulate(t, fmt.Sprintf(src, mode, ""))
		_, rec, run := simulate(t, fmt.Sprintf(src, mode, ", transport: net/http"))
		m, _ := results.LookupMetric("transport_resends")
		if v, _ := m.Value(&raw); v != 0 {
			t.Errorf("%s: herdbench's transport re-sent %v attempts", mode, v)
		}
		if v, _ := m.Value(&run); v != 1 {
			t.Errorf("%s: net/http re-sent %v attempts, want 1 (the one the crash reset)", mode, v)
		}
		if run.Attempts != raw.Attempts+1 || run.Requests != raw.Requests || run.Failed != raw.Failed {
			t.Errorf("%s: net/http %d attempts, %d requests, %d failed; herdbench's %d, %d, %d: want one attempt more, the rest alike",
				mode, run.Attempts, run.Requests, run.Failed, raw.Attempts, raw.Requests, raw.Failed)
		}
		want := results.Reset
		if mode == "refuse" {
			want = results.Refused
		}
		tl, rawTL := rec.Timeline(results.Bucket), rawRec.Timeline(results.Bucket)
		crash := int(1500 * time.Millisecond / results.Bucket)
		if got := tl.Rows[crash][results.SeriesTransportResends]; got != 1 {
			t.Errorf("%s: %d re-sends in the crash's bucket, want 1 (sent at once)", mode, got)
		}
		if got, was := tl.Rows[crash][want], rawTL.Rows[crash][want]; got != was+1 {
			t.Errorf("%s: %d attempts %s in the crash's bucket, want %d (the re-send's)", mode, got, want, was+1)
		}
	}
}
