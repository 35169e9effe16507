package telemetry

import (
	"bufio"
	"errors"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	dto "github.com/prometheus/client_model/go"
	"google.golang.org/protobuf/encoding/protodelim"
)

// TestAttemptHistogramNativeAndClassic: /metrics serves the attempts'
// latency as a native histogram to a scraper that asks for protobuf
// (a schema, spans), with its classic buckets beside it, and as classic
// buckets alone in the text format.
func TestAttemptHistogramNativeAndClassic(t *testing.T) {
	sw, err := NewSwarm(nil)
	if err != nil {
		t.Fatal(err)
	}
	o := sw.Cohort("c")
	for _, d := range []time.Duration{time.Millisecond, 3 * time.Millisecond, 40 * time.Millisecond, 2 * time.Second} {
		o.ObserveAttempt(results.Attempt{Latency: d, Number: 1, Outcome: results.OK, Status: 200})
	}
	h := Handler(sw.Collectors()...)

	req := httptest.NewRequest("GET", "/metrics", nil)
	req.Header.Set("Accept", "application/vnd.google.protobuf;proto=io.prometheus.client.MetricFamily;encoding=delimited")
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	r := bufio.NewReader(rec.Body)
	var hist *dto.Histogram
	for {
		var mf dto.MetricFamily
		if err := protodelim.UnmarshalFrom(r, &mf); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		if mf.GetName() != "herdbench_swarm_attempt_duration_seconds" {
			continue
		}
		for _, m := range mf.Metric {
			for _, l := range m.Label {
				if l.GetName() == "outcome" && l.GetValue() == "ok" && m.Histogram.GetSampleCount() > 0 {
					hist = m.Histogram
				}
			}
		}
	}
	if hist == nil {
		t.Fatal("no herdbench_swarm_attempt_duration_seconds{outcome=\"ok\"} with samples in the protobuf exposition")
	}
	if hist.GetSchema() != 3 || len(hist.PositiveSpan) == 0 || hist.GetSampleCount() != 4 || len(hist.Bucket) != len(latencyBuckets) {
		t.Errorf("schema %d, %d spans, count %d, %d classic buckets; want 3, some, 4, %d", hist.GetSchema(), len(hist.PositiveSpan), hist.GetSampleCount(), len(hist.Bucket), len(latencyBuckets))
	}

	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	text := rec.Body.String()
	if !strings.Contains(text, `herdbench_swarm_attempt_duration_seconds_bucket{attempt="1",cohort="c",outcome="ok",le="0.005"} 2`) {
		t.Errorf("the text format lacks the classic bucket le=0.005 holding 2:\n%s", text)
	}
}
