package recording

import (
	"slices"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
)

// A transport's re-send is the same request's same attempt number twice
// (net/http sends the same bytes again); a strategy's retry is the next
// number. The recording tells them apart by the request's id (the AWS
// SDKs' invocation id, an idempotency key), counts the re-sends in
// transport_resends and no new request for them, and leaves the figure
// null (unmeasured) for a cohort whose attempts carry no id.
func TestRecordingTellsResendsFromRetries(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		t0 := time.Now()
		aws, _ := ParseAttemptHeader(AWSHeader)
		by, _ := ParseCohortBy("user-agent")
		r := New(Options{By: "target", Scenario: "g", CohortBy: by, Attempts: aws})
		r.PlanStarted(t0)
		for i, id := range []string{"a", "b", "c"} {
			at := time.Duration(i) * 100 * time.Millisecond
			h := []string{"amz-sdk-request", "attempt=1; max=3", "amz-sdk-invocation-id", id}
			// Reset at a crash, re-sent by net/http with the same bytes...
			r.Observe(obs(t0, at, time.Millisecond, "sdk", target.AnswerAborted, h...))
			r.Observe(obs(t0, at+time.Millisecond, time.Millisecond, "sdk", target.Answer5xx, h...))
			// ... then retried by the SDK: the next number.
			r.Observe(obs(t0, at+time.Second, time.Millisecond, "sdk", target.AnswerOK, "amz-sdk-request", "attempt=2; max=3", "amz-sdk-invocation-id", id))
			// A client that sends no id: its re-sends cannot be told.
			r.Observe(obs(t0, at, time.Millisecond, "anon", target.AnswerOK, "amz-sdk-request", "attempt=1; max=3"))
		}
		time.Sleep(3 * time.Second)
		seg, err := r.Snapshot()
		if err != nil {
			t.Fatal(err)
		}
		runs := seg.Output.Summary.Runs
		if len(runs) != 2 || runs[0].Strategy != "sdk" || runs[1].Strategy != "anon" {
			t.Fatalf("cohorts %+v", runs)
		}
		m, _ := results.LookupMetric("transport_resends")
		sdk, anon := runs[0], runs[1]
		if v, ok := m.Value(&sdk); !ok || v != 3 || sdk.Attempts != 9 || sdk.Requests != 3 || sdk.Succeeded != 3 {
			t.Errorf("sdk: transport_resends %v (%v), attempts %d, requests %d, succeeded %d; want 3, 9, 3, 3", v, ok, sdk.Attempts, sdk.Requests, sdk.Succeeded)
		}
		if _, ok := m.Value(&anon); ok || !slices.Contains(anon.Unmeasured, "transport_resends") {
			t.Errorf("anon: transport_resends measured (unmeasured %v); without a request id it cannot be", anon.Unmeasured)
		}
	})
}
