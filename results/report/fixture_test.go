package report

import (
	"math/rand/v2"
	"path/filepath"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/folder"
)

// fixture writes a small results folder, as a run writes it, with two
// cohorts of a made-up scenario: 6 s, a 1 s outage at 1.5 s, 40 closed-loop
// clients per cohort. "no-jitter" retries after exactly 100 ms × 2^(n-1), so
// its clients that failed together retry together; "full-jitter" draws the
// wait uniformly from [0, that). shift moves the outage (for an "after" run).
func fixture(t testing.TB, dir string, seed uint64, shift time.Duration) string {
	t.Helper()
	return fixtureRun(t, dir, seed, shift, false)
}

// fixtureRun is fixture; with apart, the cohorts ran one after the other,
// as on a machine with few cores: each records its own t = 0, 7 s apart.
func fixtureRun(t testing.TB, dir string, seed uint64, shift time.Duration, apart bool) string {
	t.Helper()
	const (
		dur     = 6 * time.Second
		clients = 40
	)
	faultAt, faultFor := 1500*time.Millisecond+shift, time.Second
	down := func(at time.Duration) bool { return at >= faultAt && at < faultAt+faultFor }
	start := time.Date(2026, 3, 1, 12, 0, 0, 250_000_000, time.UTC)
	s := &results.Summary{
		Scenario: "fixture", Description: "A made-up run for the report's tests.", Mode: "sim",
		Seed: seed, Version: "v0.0.0-test", Started: start, DurationS: dur.Seconds(),
		Workload: "closed", Faults: []results.FaultWindow{{Name: "outage", Kind: "outage", AtS: faultAt.Seconds(), ForS: faultFor.Seconds()}},
	}
	out := folder.Output{Summary: s, Scenario: []byte("name: fixture\nduration: 6s\n# made up for tests\n")}
	for _, name := range []string{"no-jitter", "full-jitter"} {
		rec := results.NewRecorder(dur, 2)
		for id := range clients {
			rng := rand.New(rand.NewPCG(seed, uint64(id)))
			sh := rec.Shard(id)
			at := time.Duration(rng.IntN(200)) * time.Millisecond
			for at < dur {
				begin := at
				sh.Started(begin)
				ok := false
				for n := 1; n <= 6 && at < dur; n++ {
					lat := time.Duration(8+rng.IntN(8)) * time.Millisecond
					outcome := results.OK
					if down(at) {
						lat, outcome = 2*time.Millisecond, results.Reset
					}
					sh.Attempt(results.Attempt{Sent: at, Latency: lat, Number: n, Outcome: outcome})
					at += lat
					if outcome == results.OK {
						ok = true
						break
					}
					wait := 100 * time.Millisecond << (n - 1)
					if name == "full-jitter" {
						wait = time.Duration(rng.Float64() * float64(wait))
					}
					at += wait
				}
				if at < dur {
					sh.Request(results.Request{Start: begin, End: at, Succeeded: ok})
				}
				at += 150*time.Millisecond + time.Duration(rng.IntN(100))*time.Millisecond
			}
		}
		c := results.Cohort{Strategy: name, Rec: rec}
		run := results.Summarize(c, results.Window{FirstStart: faultAt, LastEnd: faultAt + faultFor})
		if apart {
			own := start.Add(time.Duration(len(s.Runs)) * (dur + time.Second))
			c.Started, run.Started, s.CohortsApart = own, &own, true
		}
		s.Runs = append(s.Runs, run)
		out.Cohorts = append(out.Cohorts, c)
	}
	if err := folder.Write(dir, out); err != nil {
		t.Fatal(err)
	}
	return dir
}

func loadFixture(t testing.TB, seed uint64, shift time.Duration, label string) *Run {
	t.Helper()
	dir := fixture(t, filepath.Join(t.TempDir(), "fixture-"+label), seed, shift)
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Label = label
	return r
}

// stampedeFixture writes the results folder of a made-up crash in which
// synchronized retries show, and returns its run with a verdict: 300
// closed-loop clients per cohort over 8 s; the service stalls at 2 s (the
// attempts sent then hang) and crashes at 3 s, failing at once every
// attempt it held, then refuses each attempt in 1 ms until 4 s.
// "no-jitter" waits 100 ms × 2^(n-1) after a failure, so the clients the
// crash failed together retry together; "full-jitter" draws each wait
// from [0, that).
func stampedeFixture(t testing.TB, dir string) *Run {
	t.Helper()
	const (
		dur     = 8 * time.Second
		clients = 300
	)
	stall, crash, up := 2*time.Second, 3*time.Second, 4*time.Second
	s := &results.Summary{Scenario: "stampede", Description: "A made-up crash for the report's first screen.", Mode: "sim", Seed: 1, Version: "v0.0.0-test",
		Started: time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC), DurationS: dur.Seconds(), Workload: "closed",
		Faults: []results.FaultWindow{{Name: "stall", Kind: "blip", AtS: stall.Seconds(), ForS: (crash - stall).Seconds()}, {Name: "crash", Kind: "outage", AtS: crash.Seconds(), ForS: (up - crash).Seconds()}}}
	out := folder.Output{Summary: s, Scenario: []byte("name: stampede\nduration: 8s\n# made up for tests\n")}
	for _, name := range []string{"no-jitter", "full-jitter"} {
		rec := results.NewRecorder(dur, 2)
		for id := range clients {
			rng := rand.New(rand.NewPCG(1, uint64(id)))
			sh := rec.Shard(id)
			for at := time.Duration(rng.IntN(200)) * time.Millisecond; at < dur; at += time.Duration(150+rng.IntN(100)) * time.Millisecond {
				begin, ok := at, false
				sh.Started(begin)
				for n := 1; n <= 6 && at < dur && !ok; n++ {
					lat, outcome := time.Duration(8+rng.IntN(8))*time.Millisecond, results.OK
					switch {
					case at >= stall && at < crash:
						lat, outcome = crash-at, results.Reset
					case at >= crash && at < up:
						lat, outcome = time.Millisecond, results.Refused
					}
					sh.Attempt(results.Attempt{Sent: at, Latency: lat, Number: n, Outcome: outcome})
					at += lat
					ok = outcome == results.OK
					if wait := 100 * time.Millisecond << (n - 1); !ok && name == "full-jitter" {
						at += time.Duration(rng.Float64() * float64(wait))
					} else if !ok {
						at += wait
					}
				}
				if at < dur {
					sh.Request(results.Request{Start: begin, End: at, Succeeded: ok})
				}
			}
		}
		c := results.Cohort{Strategy: name, Rec: rec}
		s.Runs = append(s.Runs, results.Summarize(c, results.Window{FirstStart: stall, LastEnd: up}))
		out.Cohorts = append(out.Cohorts, c)
	}
	if err := folder.Write(dir, out); err != nil {
		t.Fatal(err)
	}
	r, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	r.Summary.Verdict = &results.Verdict{Outcome: results.Holds, Sentence: "The figures hold: every headline figure is within its band of the simulator's."}
	return r
}
