package control

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/spoken"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/scenarios/decode"
	"github.com/herdbench/herdbench/target"
)

// MaxRun is the longest run POST /control/start may name: a day, as a
// scenario's duration.
const MaxRun = 24 * time.Hour

// maxBody bounds a control call's body.
const maxBody = 64 << 10

// Options configure the control API.
type Options struct {
	Server  *target.Server
	Metrics http.Handler // served at /metrics
	// Check refuses faults the server cannot apply (the proxy's brownouts);
	// nil accepts every fault.
	Check func(chaos.Timed) error
	// Notify, when set, is told of each change made through the API, for
	// the command's log.
	Notify func(msg string)
	// Access is who may call: every request, /metrics included, passes
	// its checks first (see guard). With a zero Access.Bound every
	// request is refused.
	Access Access
	// Results, when set, serves POST /control/results: it writes the
	// results folder of the server's recording so far (package recording)
	// and says where. ErrNothingRecorded is answered 409; without Results
	// (recording off) the call is answered 404.
	Results func() (ResultsAnswer, error)
	// RunFor, when set, is told before every start of the plan the
	// length of the run that POST /control/start names ({"duration":
	// "12s"}: a swarm's own, from --chaos-control), 0 when it names none,
	// so that the recording knows when that run ends
	// (recording.Recording.SetRun).
	RunFor func(d time.Duration)
}

// ResultsAnswer is the answer of POST /control/results.
type ResultsAnswer struct {
	// Dir is the results folder written.
	Dir string `json:"results"`
	// Thresholds are the scenario's thresholds checked against it, and
	// Failed how many of them failed.
	Thresholds []results.ThresholdResult `json:"thresholds"`
	Failed     int                       `json:"thresholds_failed"`
}

// ErrNothingRecorded is returned by Options.Results when the recording has
// no attempt to write yet.
var ErrNothingRecorded = errors.New("nothing recorded yet")

// Handler returns the control API.
func Handler(o Options) http.Handler {
	a := &api{Options: o}
	mux := http.NewServeMux()
	mux.HandleFunc("GET /control/status", a.status)
	mux.HandleFunc("GET /control/clock", a.clock)
	mux.HandleFunc("POST /control/start", a.start)
	mux.HandleFunc("POST /control/stop", a.stop)
	mux.HandleFunc("POST /control/inject", a.inject)
	mux.HandleFunc("POST /control/results", a.results)
	if o.Metrics != nil {
		mux.Handle("GET /metrics", o.Metrics)
	}
	mux.HandleFunc("GET /{$}", a.index)
	return Guard(o.Access, mux)
}

type api struct{ Options }

// Status is the JSON answer of every control call.
type Status struct {
	Role         string     `json:"role"` // "target" or "proxy"
	Listen       string     `json:"listen"`
	PlanRunning  bool       `json:"plan_running"`
	PlanStarted  *time.Time `json:"plan_started"`   // the plan's t = 0; null when not running
	PlanElapsedS *float64   `json:"plan_elapsed_s"` // null when not running
	PlanDone     bool       `json:"plan_done"`      // running, and every planned fault has ended
	ActiveFaults []string   `json:"active_faults"`
	Faults       []Fault    `json:"faults"` // planned (while running) and injected, relative to now
	// Plan is the scenario's chaos plan as written, relative to its t = 0.
	Plan     []PlannedFault   `json:"plan"`
	InFlight int64            `json:"in_flight"`
	Requests map[string]int64 `json:"requests"` // answers by outcome, as requests_total
	Model    *Model           `json:"model,omitempty"`
}

// Fault is a planned or injected fault, relative to now.
type Fault struct {
	Name      string  `json:"name"`
	Kind      string  `json:"kind"`
	Injected  bool    `json:"injected"`
	StartsInS float64 `json:"starts_in_s"` // negative once started
	EndsInS   float64 `json:"ends_in_s"`   // negative once ended
	Active    bool    `json:"active"`
}

// PlannedFault is one fault of the scenario's plan.
type PlannedFault struct {
	Name string  `json:"name"`
	Kind string  `json:"kind"`
	AtS  float64 `json:"at_s"`
	ForS float64 `json:"for_s"`
}

// Model is the standalone target's capacity model now.
type Model struct {
	Busy      int   `json:"busy"`
	Queued    int   `json:"queued"`
	Capacity  int   `json:"capacity"`
	Served    int64 `json:"served"`
	Wasted    int64 `json:"wasted"`
	Rejected  int64 `json:"rejected"`
	Expired   int64 `json:"expired"`
	Faulted   int64 `json:"faulted"`
	Abandoned int64 `json:"abandoned"`
	Crashed   int64 `json:"crashed"`
}

// StatusOf returns s's state as the control API shows it.
func StatusOf(s *target.Server) Status {
	st := s.Status()
	out := Status{
		Role: "target", Listen: s.Addr(), PlanRunning: st.PlanRunning, PlanDone: st.PlanDone,
		ActiveFaults: st.Active, Faults: []Fault{}, Plan: []PlannedFault{}, InFlight: st.InFlight, Requests: map[string]int64{},
	}
	if p := s.Plan(); p != nil {
		for _, f := range p.Faults() {
			out.Plan = append(out.Plan, PlannedFault{Name: f.Name, Kind: f.Kind, AtS: f.At.Seconds(), ForS: f.For.Seconds()})
		}
	}
	if st.PlanRunning {
		t, e := st.PlanStart.UTC(), st.PlanElapsed.Seconds()
		out.PlanStarted, out.PlanElapsedS = &t, &e
	}
	for _, f := range st.Faults {
		out.Faults = append(out.Faults, Fault{Name: f.Name, Kind: f.Kind, Injected: f.Injected,
			StartsInS: f.StartsIn.Seconds(), EndsInS: f.EndsIn.Seconds(), Active: f.Active})
	}
	for a := target.Answer(0); a < target.NumAnswers; a++ {
		out.Requests[a.String()] = st.Answers[a]
	}
	if st.Proxy {
		out.Role = "proxy"
	} else {
		out.Model = &Model{Busy: st.Busy, Queued: st.Queued, Capacity: st.Capacity,
			Served: st.Stats.Served, Wasted: st.Stats.Wasted, Rejected: st.Stats.Rejected, Expired: st.Stats.Expired,
			Faulted: st.Stats.Faulted, Abandoned: st.Stats.Abandoned, Crashed: st.Stats.Crashed}
	}
	return out
}

func (a *api) status(w http.ResponseWriter, r *http.Request) { a.reply(w, http.StatusOK) }

func (a *api) reply(w http.ResponseWriter, code int) {
	writeJSON(w, code, StatusOf(a.Server))
}

func (a *api) notify(format string, args ...any) {
	if a.Notify != nil {
		a.Notify(fmt.Sprintf(format, args...))
	}
}

// startRequest is the optional body of POST /control/start.
type startRequest struct {
	At time.Time `json:"at"` // the plan's t = 0; now when absent
	// Duration is how long the run that starts the plan lasts from its
	// t = 0 ("12s"): the caller's, whose clients cut what is in flight
	// at its end; absent, the scenario's.
	Duration string `json:"duration"`
}

func (a *api) start(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	var req startRequest
	if len(strings.TrimSpace(string(body))) > 0 {
		dec := json.NewDecoder(strings.NewReader(string(body)))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&req); err != nil {
			fail(w, http.StatusBadRequest, `the body of /control/start is empty (start now) or {"at": "<RFC 3339 time>", "duration": "<the run's length, e.g. 12s>"}: `+err.Error(), nil)
			return
		}
	}
	var run time.Duration
	if req.Duration != "" {
		d, err := time.ParseDuration(req.Duration)
		if err != nil || d <= 0 || d > MaxRun {
			fail(w, http.StatusBadRequest, fmt.Sprintf(`/control/start's duration %q: give the run's length from its t = 0, more than 0 and at most %s, e.g. "12s"`, req.Duration, TrimDuration(MaxRun)), nil)
			return
		}
		run = d
	}
	if st := a.Server.Status(); !req.At.IsZero() && st.PlanRunning && st.PlanStart.Equal(req.At) {
		// The shards of a run each send its agreed t = 0: the plan starts
		// once, and the others' starts change nothing.
		a.notify("control: chaos plan already starts at %s; unchanged", req.At.UTC().Format(time.RFC3339Nano))
		a.reply(w, http.StatusOK)
		return
	}
	if a.RunFor != nil {
		a.RunFor(run) // 0: this start names none, the scenario's holds
	}
	if err := a.Server.StartPlan(req.At); err != nil {
		fail(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	when := "now"
	if !req.At.IsZero() {
		when = "at " + req.At.UTC().Format(time.RFC3339Nano)
	}
	if run > 0 {
		when += ", for a run of " + TrimDuration(run)
	}
	a.notify("control: chaos plan started %s", when)
	a.reply(w, http.StatusOK)
}

func (a *api) stop(w http.ResponseWriter, r *http.Request) {
	if err := a.Server.StopPlan(); err != nil {
		fail(w, http.StatusInternalServerError, err.Error(), nil)
		return
	}
	a.notify("control: chaos stopped; every fault has ended")
	a.reply(w, http.StatusOK)
}

func (a *api) inject(w http.ResponseWriter, r *http.Request) {
	body, ok := readBody(w, r)
	if !ok {
		return
	}
	f, err := decode.ParseFault("fault", body)
	if err != nil {
		var se *decode.Error
		if errors.As(err, &se) {
			var problems []string
			for _, p := range se.Problems {
				problems = append(problems, p.String())
			}
			fail(w, http.StatusBadRequest, fmt.Sprintf("the fault has %s; send e.g. {\"kind\":\"outage\",\"mode\":\"503\",\"for\":\"5s\"}", spoken.Count(len(problems), "problem", "problems")), problems)
			return
		}
		fail(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	if a.Check != nil {
		if err := a.Check(f); err != nil {
			fail(w, http.StatusBadRequest, err.Error(), nil)
			return
		}
	}
	if err := a.Server.Inject(f); err != nil {
		fail(w, http.StatusBadRequest, err.Error(), nil)
		return
	}
	a.notify("control: injected %s (%s) in %s for %s", f.Name, f.Kind, f.At, f.For)
	a.reply(w, http.StatusOK)
}

func (a *api) results(w http.ResponseWriter, r *http.Request) {
	if a.Results == nil {
		fail(w, http.StatusNotFound, "this server does not record its traffic (it was started with --no-record): there are no results to write", nil)
		return
	}
	ans, err := a.Results()
	switch {
	case errors.Is(err, ErrNothingRecorded):
		fail(w, http.StatusConflict, "nothing recorded yet: no attempt has arrived since the plan's clock started (with --hold, POST /control/start first)", nil)
		return
	case err != nil:
		fail(w, http.StatusInternalServerError, "writing the results: "+err.Error(), nil)
		return
	}
	if ans.Thresholds == nil {
		ans.Thresholds = []results.ThresholdResult{}
	}
	a.notify("control: results written to %s", ans.Dir)
	writeJSON(w, http.StatusOK, ans)
}

func (a *api) index(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	_, _ = io.WriteString(w, `herdbench control API
  GET  /control/status
  GET  /control/clock    this server's wall clock, for the shards of a run
  POST /control/start    optional body {"at": "<RFC 3339 time>"}
  POST /control/stop
  POST /control/inject   body e.g. {"kind":"outage","mode":"503","for":"5s"}
  POST /control/results  write the recording's results folder so far
  GET  /metrics
A POST needs "Content-Type: application/json".
`)
}

func readBody(w http.ResponseWriter, r *http.Request) ([]byte, bool) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		fail(w, http.StatusBadRequest, "reading the body: "+err.Error(), nil)
		return nil, false
	}
	return body, true
}

type errorBody struct {
	Error    string   `json:"error"`
	Problems []string `json:"problems,omitempty"`
}

func fail(w http.ResponseWriter, code int, msg string, problems []string) {
	writeJSON(w, code, errorBody{Error: msg, Problems: problems})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	_, _ = w.Write(append(b, '\n'))
}
