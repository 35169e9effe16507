package resultstest

import (
	"math/rand/v2"
	"testing"
	"time"

	hdrhistogram "github.com/HdrHistogram/hdrhistogram-go"
	"github.com/herdbench/herdbench/results"
)

// Recorded is what Record fed a recorder: the values ending in each second,
// and reference histograms of all of them, built apart from the recorder.
type Recorded struct {
	Attempts, Requests []int64 // per second of the run
	Attempt, Request   *hdrhistogram.Histogram
}

// Record feeds rec n attempts and requests from a fixed stream, spread over
// the run and across shards, some recorded late (after the shard moved on to
// a later second).
func Record(rec *results.Recorder, shards int, dur time.Duration, n int, seed uint64) Recorded {
	rng := rand.New(rand.NewPCG(seed, 1))
	secs := int((dur + time.Second - 1) / time.Second)
	want := Recorded{Attempts: make([]int64, secs), Requests: make([]int64, secs), Attempt: results.NewHistogram(), Request: results.NewHistogram()}
	type late struct {
		shard int
		a     results.Attempt
	}
	var held []late
	for i := range n {
		// Time advances through the run, as in both engines.
		sent := time.Duration(float64(dur) * float64(i) / float64(n))
		lat := time.Duration(rng.ExpFloat64() * float64(20*time.Millisecond))
		a := results.Attempt{Sent: sent, Latency: lat, Number: 1 + rng.IntN(4), Outcome: results.Outcome(rng.IntN(int(results.NumOutcomes)))}
		end := min(int((sent+lat)/time.Second), secs-1)
		want.Attempts[end]++
		_ = want.Attempt.RecordValue(micros(lat))
		shard := rng.IntN(shards)
		if rng.IntN(50) == 0 {
			held = append(held, late{shard, a}) // Recorded a while later
		} else {
			rec.Shard(shard).Attempt(a)
		}
		if rng.IntN(3) == 0 {
			start := max(0, sent-time.Duration(rng.IntN(int(time.Second))))
			rec.Shard(shard).Request(results.Request{Start: start, End: sent + lat, Succeeded: a.Outcome == results.OK})
			want.Requests[end]++
			_ = want.Request.RecordValue(micros(sent + lat - start))
		}
		if len(held) > 0 && i%97 == 0 {
			for _, h := range held {
				rec.Shard(h.shard).Attempt(h.a)
			}
			held = held[:0]
		}
	}
	for _, h := range held {
		rec.Shard(h.shard).Attempt(h.a)
	}
	return want
}

func MergedIntervals(t *testing.T, ivs []results.Interval) (attempt, request *hdrhistogram.Histogram) {
	t.Helper()
	attempt, request = results.NewHistogram(), results.NewHistogram()
	for _, iv := range ivs {
		if d := iv.Attempt.MergeInto(attempt); d != 0 {
			t.Fatalf("merging attempt intervals dropped %d values", d)
		}
		if d := iv.Request.MergeInto(request); d != 0 {
			t.Fatalf("merging request intervals dropped %d values", d)
		}
	}
	return attempt, request
}

// ChainFixture is one cohort of a chain of two tiers: 10 user requests,
// each tried twice at the gateway (20 attempts), each of which the gateway
// tried three times at the service (60 attempts), the service failing all
// but the last try of each call from 1 s on.
func ChainFixture() results.Cohort {
	const dur = 3 * time.Second
	top, below := results.NewRecorder(dur, 1), results.NewRecorder(dur, 1)
	for u := range 10 {
		at := time.Duration(u) * 200 * time.Millisecond
		top.Shard(u).Started(at)
		for a := range 2 {
			sent := at + time.Duration(a)*50*time.Millisecond
			below.Shard(0).Started(sent)
			for b := range 3 {
				o := results.OK
				if sent >= time.Second && b < 2 {
					o = results.HTTP5xx
				}
				below.Shard(0).Attempt(results.Attempt{Sent: sent + time.Duration(b)*10*time.Millisecond, Latency: time.Millisecond, Number: b + 1, Outcome: o})
			}
			below.Shard(0).Request(results.Request{Start: sent, End: sent + 30*time.Millisecond, Succeeded: true})
			o := results.OK
			if a == 0 {
				o = results.HTTP5xx
			}
			top.Shard(u).Attempt(results.Attempt{Sent: sent, Latency: 31 * time.Millisecond, Number: a + 1, Outcome: o})
		}
		top.Shard(u).Request(results.Request{Start: at, End: at + 81*time.Millisecond, Succeeded: true})
	}
	return results.Cohort{Strategy: "every-tier", Rec: top, Tiers: []string{"gateway", "service"}, Below: []*results.Recorder{below}}
}

func ThresholdSummary() *results.Summary {
	rec := 1.25
	return &results.Summary{Runs: []results.Run{
		{Strategy: "no-jitter", Requests: 1000, Succeeded: 940, SuccessRatio: new(0.94), Attempts: 2310, Amplification: 2.31,
			HerdFactor: 14.2, FailedAfterFault: 410, RecoveryS: nil, Outcomes: map[string]int64{"reset": 512},
			LatencyMS: results.Latencies{Request: results.Percentiles{P99: 5234.5}}},
		{Strategy: "full-jitter", Requests: 1000, Succeeded: 999, SuccessRatio: new(0.999), Attempts: 1210, Amplification: 1.21,
			HerdFactor: 1.4, FailedAfterFault: 12, RecoveryS: &rec, Outcomes: map[string]int64{"reset": 480},
			LatencyMS: results.Latencies{Request: results.Percentiles{P99: 812.25}}},
	}}
}

// Fixture records two cohorts: one in synchronized waves, one spread out,
// with deterministic values.
func Fixture() ([]results.Cohort, *results.Summary) {
	const dur = 4 * time.Second
	waves, spread := results.NewRecorder(dur, 2), results.NewRecorder(dur, 2)
	for i := 0; i < 200; i++ {
		at := time.Duration(i) * 20 * time.Millisecond
		o := results.OK
		if at >= time.Second && at < 2*time.Second {
			o = results.HTTP5xx
		}
		spread.Shard(i).Started(at)
		spread.Shard(i).Attempt(results.Attempt{Sent: at, Latency: time.Duration(1+i%7) * time.Millisecond, Number: 1 + i%3, Outcome: o})
		spread.Shard(i).Request(results.Request{Start: at, End: at + 5*time.Millisecond, Succeeded: o == results.OK})
		wat := time.Duration(i/50) * time.Second // 50 attempts at each whole second
		wo := results.OK
		if wat == time.Second || wat == 2*time.Second {
			wo = results.Reset
		}
		waves.Shard(i).Started(wat)
		waves.Shard(i).Attempt(results.Attempt{Sent: wat, Latency: time.Duration(1+i%11) * time.Millisecond, Number: 1 + i/50, Outcome: wo})
		waves.Shard(i).Request(results.Request{Start: wat, End: wat + 30*time.Millisecond, Succeeded: wo == results.OK})
	}
	cohorts := []results.Cohort{{Strategy: "no-jitter", Rec: waves}, {Strategy: "full-jitter", Rec: spread}}
	s := &results.Summary{
		Scenario: "fixture", Mode: "real", Seed: 1, Version: "test",
		Started:   time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC),
		DurationS: 4, Workload: "closed",
		Faults: []results.FaultWindow{{Name: "crash", Kind: "outage", AtS: 1, ForS: 1}},
	}
	w := results.Window{FirstStart: time.Second, LastEnd: 2 * time.Second}
	for _, c := range cohorts {
		s.Runs = append(s.Runs, results.Summarize(c, w))
	}
	return cohorts, s
}

// micros is d in the recorder's unit, clamped to its histograms' range
// (1 µs to 1 h) as the recorder clamps it.
func micros(d time.Duration) int64 {
	return min(max(int64(d/time.Microsecond), 1), int64(time.Hour/time.Microsecond))
}

// Point returns a sweep point from field and value pairs.
func Point(kv ...string) []results.Setting {
	var out []results.Setting
	for i := 0; i+1 < len(kv); i += 2 {
		out = append(out, results.Setting{Field: kv[i], Value: kv[i+1]})
	}
	return out
}

// Thresholds parses exprs as thresholds on cohort ("": every
// cohort), failing the test on an error.
func Thresholds(t *testing.T, cohort string, exprs ...string) []results.Threshold {
	t.Helper()
	var out []results.Threshold
	for _, e := range exprs {
		th, err := results.ParseThreshold(e)
		if err != nil {
			t.Fatal(err)
		}
		th.Cohort = cohort
		out = append(out, th)
	}
	return out
}
