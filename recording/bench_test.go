package recording

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/target"
)

// BenchmarkObserve is the cost of recording one attempt: its cohort, its
// attempt number, the recorder.
func BenchmarkObserve(b *testing.B) {
	by, _ := ParseCohortBy("user-agent")
	aws, _ := ParseAttemptHeader(AWSHeader)
	r := New(Options{CohortBy: by, Attempts: aws, Window: time.Minute})
	t0 := time.Now()
	r.PlanStarted(t0)
	o := obs(t0, 0, 0, "client/1.0", target.AnswerOK, "amz-sdk-request", "attempt=1; max=3")
	b.ReportAllocs()
	b.ResetTimer()
	for i := range b.N {
		o.Arrived = t0.Add(time.Duration(i%50000) * time.Millisecond)
		o.Ended = o.Arrived.Add(time.Millisecond)
		r.Observe(o)
	}
}
