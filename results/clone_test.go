package results

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"
)

// records returns n random records (requests, attempts, calls, policy
// events, at times in order, as a simulator makes them), each to apply to
// a recorder.
func records(seed uint64, d time.Duration, n int) []func(*Recorder) {
	rng := rand.New(rand.NewPCG(seed, 2))
	out := make([]func(*Recorder), n)
	for i := range out {
		t := time.Duration(int64(i) * int64(d) / int64(n))
		lat := time.Duration(rng.Int64N(int64(2 * time.Second)))
		k, num, o, ok := rng.IntN(5), rng.IntN(6), Outcome(rng.IntN(int(NumOutcomes))), rng.IntN(2) == 0
		e := PolicyEvent(rng.IntN(int(NumPolicyEvents)))
		out[i] = func(r *Recorder) {
			sh := r.Shard(0)
			switch k {
			case 0:
				sh.Started(t)
			case 1:
				sh.Attempt(Attempt{Sent: t, Latency: lat, Number: num, Outcome: o})
			case 2:
				sh.Request(Request{Start: t - lat, End: t, Succeeded: ok})
			case 3:
				r.Call(t)
			case 4:
				sh.Policy(t, e)
			}
		}
	}
	return out
}

// contents is everything a recorder tells, as bytes.
func contents(t *testing.T, r *Recorder) []byte {
	t.Helper()
	a, q := r.Histograms()
	var iv [][2]int64
	for _, x := range r.Intervals() {
		iv = append(iv, [2]int64{x.Attempt.TotalCount(), x.Request.TotalCount()})
	}
	after, _, _ := r.After()
	b, err := json.Marshal([]any{
		Summarize(Cohort{Strategy: "x", Rec: r, OCC: true}, Window{FirstStart: time.Second, LastEnd: 2 * time.Second}),
		r.Timeline(Bucket), r.Live(), r.Calls(), r.LastEnd(), a.Export(), q.Export(), iv, after.Export(),
	})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestCloneRecordsOnItsOwn: a copy of an unshared recorder taken halfway
// through, given the second half, holds exactly what the recorder given
// everything holds; what is recorded into the copy afterwards never shows
// in the original, nor the other way round.
func TestCloneRecordsOnItsOwn(t *testing.T) {
	for _, whole := range []bool{false, true} {
		d := 6 * time.Second
		mk := func() *Recorder {
			r := NewRecorder(d, 1).Unshared().SplitAt(2 * time.Second)
			if whole {
				r.WithoutIntervals()
			}
			return r
		}
		recs := records(3, d, 4000)
		straight, half := mk(), mk()
		for _, f := range recs {
			f(straight)
		}
		for _, f := range recs[:2000] {
			f(half)
		}
		c := half.Clone()
		for _, f := range recs[2000:] {
			f(c)
		}
		want := contents(t, straight)
		if !bytes.Equal(contents(t, c), want) {
			t.Fatalf("whole %v: the copy, given the rest, differs from the recorder given everything", whole)
		}
		before := contents(t, half)
		for _, f := range records(4, d, 500) {
			f(c)
		}
		if !bytes.Equal(contents(t, half), before) {
			t.Fatalf("whole %v: recording into the copy changed the original", whole)
		}
		for _, f := range recs[2000:] {
			f(half)
		}
		if !bytes.Equal(contents(t, half), want) {
			t.Fatalf("whole %v: the original, given the rest, differs", whole)
		}
	}
}

func TestCloneOfASharedRecorderPanics(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("a shared recorder was copied")
		}
	}()
	NewRecorder(time.Second, 1).Clone()
}
