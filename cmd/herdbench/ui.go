package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/live"
	"github.com/herdbench/herdbench/recording"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
)

// uiHelp is --ui's help, the same on the three commands.
const uiHelp = "serve a live page of the run at http://ADDR/ (charts by outcome, the fault plan, the verdict so far; on a target or proxy the start, stop and inject buttons), e.g. 127.0.0.1:8088; off loopback needs --allow-remote and a token"

// uiServer is a running --ui: the page's server and its sampler.
type uiServer struct {
	live   *live.Server
	http   *http.Server
	addr   net.Addr
	cancel context.CancelFunc
	ran    chan struct{}
	served chan struct{}
}

// uiConfig is what a command gives startUI.
type uiConfig struct {
	addr        string
	allowRemote bool
	token       string
	role, title string
	source      live.Source
	herd        func() []float64
	// control returns the control API for the page's own address (its
	// Access), or nil for no buttons.
	control func(control.Access) http.Handler
	listen  func(network, addr string) (net.Listener, error) // nil: the host's, behind the interlock
}

// checkUI refuses, before anything starts, a --ui off loopback without
// --allow-remote or without a token: the control API's rules.
func checkUI(addr string, allowRemote bool, token string) error {
	return checkServed("--ui", addr, allowRemote, token, "watch the run and, on a target or proxy, stop it or inject faults", "--control-token-file FILE", "open the page as http://HOST:PORT/#token=TOKEN")
}

// checkServed refuses, before anything starts, an address a command
// serves on (flag's addr) that is off loopback without --allow-remote or
// without a token: there anyone who reaches it could do what, so it needs
// a token from tokenFlag; use says how a client sends it.
func checkServed(flag, addr string, allowRemote bool, token, what, tokenFlag, use string) error {
	remote, err := checkAddr(flag, addr, allowRemote)
	if err != nil {
		return err
	}
	if remote && token == "" {
		return fmt.Errorf("%s %s is off loopback, where anyone who reaches it could %s: give it a token (%s or $%s, e.g. openssl rand -hex 16 > token) and %s", flag, addr, what, tokenFlag, tokenEnv, use)
	}
	return nil
}

// startUI listens on c.addr and serves the live page until Close.
func startUI(c uiConfig, stderr io.Writer) (*uiServer, error) {
	listen := c.listen
	if listen == nil {
		listen = netguard.Guard{AllowRemote: c.allowRemote}.Listen
	}
	ln, err := listen("tcp", c.addr)
	if err != nil {
		return nil, fmt.Errorf("--ui: %w; choose another address with --ui", err)
	}
	access := controlAccess(c.addr, ln.Addr(), c.token)
	o := live.Options{Role: c.role, Title: c.title, Source: c.source, Herd: c.herd, Access: access}
	if c.control != nil {
		o.Control = c.control(access)
	}
	u := &uiServer{live: live.New(o), addr: ln.Addr(), ran: make(chan struct{}), served: make(chan struct{})}
	limits := netguard.ControlLimits()
	u.http = limits.Server(u.live.Handler())
	u.http.ConnContext = live.ConnContext // an event stream's small send buffer
	ctx, cancel := context.WithCancel(context.Background())
	u.cancel = cancel
	go func() {
		defer close(u.ran)
		u.live.Run(ctx)
	}()
	go func() {
		defer close(u.served)
		_ = limits.Serve(u.http, ln)
	}()
	hint := ""
	if c.token != "" {
		hint = "#token=TOKEN (the control token)"
	}
	fmt.Fprintf(stderr, "herdbench: live page on http://%s/%s\n", ln.Addr(), hint)
	return u, nil
}

// Close sends the viewers the last frame, ends their streams and stops
// the server.
func (u *uiServer) Close() {
	if u == nil {
		return
	}
	u.cancel()
	<-u.ran
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = u.http.Shutdown(ctx)
	_ = u.http.Close()
	<-u.served
}

// swarmSource is a scenario's live figures: the run under way, replaced
// at each repetition, point of a sweep or cohort run apart.
type swarmSource struct {
	cur atomic.Pointer[swarmRun]
	n   atomic.Int64
}

type swarmRun struct {
	run *engine.Run
	id  int64
}

func (s *swarmSource) set(r *engine.Run) {
	s.cur.Store(&swarmRun{run: r, id: s.n.Add(1)})
}

func (s *swarmSource) sample() live.Sample {
	cur := s.cur.Load()
	if cur == nil {
		return live.Sample{}
	}
	r := cur.run
	snap := r.Snapshot()
	done := false
	select {
	case <-r.Done():
		done = true
	default:
	}
	out := live.Sample{Run: cur.id, Elapsed: snap.Elapsed, Duration: r.Plan.Duration, Done: done,
		Running: !done && !time.Now().Before(r.Origin)}
	if snap.Faults != "" {
		out.Active = strings.Split(snap.Faults, "+")
	}
	for _, c := range snap.Cohorts {
		out.Cohorts = append(out.Cohorts, live.Cohort{Name: c.Strategy, Live: c.Live})
	}
	if r.Plan.Chaos != nil {
		for _, f := range r.Plan.Chaos.Faults() {
			out.Faults = append(out.Faults, live.Fault{Name: f.Name, Kind: f.Kind, AtS: f.At.Seconds(), ForS: f.For.Seconds()})
		}
	}
	return out
}

func (s *swarmSource) herd() []float64 {
	if cur := s.cur.Load(); cur != nil {
		return cur.run.HerdSoFar()
	}
	return nil
}

// serverSource returns a standalone target's or proxy's live figures: the
// recording's cohorts (one "all" cohort from the server's answers with
// --no-record), on the plan's clock. A run is one start of the plan: a
// restart begins a new one; a stop does not (the traffic goes on).
func serverSource(srv *target.Server, rec *recording.Recording) live.Source {
	began := time.Now()
	var run int64
	var start time.Time
	injected := map[string]live.Fault{} // as first seen, so that their times do not move
	return func() live.Sample {
		st := srv.Status()
		now := time.Now()
		if st.PlanRunning && !st.PlanStart.Equal(start) {
			start, run = st.PlanStart, run+1
			clear(injected)
		}
		origin := began
		if !start.IsZero() {
			origin = start
		}
		out := live.Sample{Run: run, Elapsed: now.Sub(origin), Running: st.PlanRunning, Active: st.Active}
		if st.PlanRunning {
			out.Elapsed = st.PlanElapsed
		}
		if p := srv.Plan(); p != nil {
			for _, f := range p.Faults() {
				out.Faults = append(out.Faults, live.Fault{Name: f.Name, Kind: f.Kind, AtS: f.At.Seconds(), ForS: f.For.Seconds()})
			}
		}
		for _, f := range st.Faults {
			if !f.Injected {
				continue
			}
			lf, ok := injected[f.Name]
			if !ok {
				at := (out.Elapsed + f.StartsIn).Round(10 * time.Millisecond)
				lf = live.Fault{Name: f.Name, Kind: f.Kind, AtS: at.Seconds(), ForS: (f.EndsIn - f.StartsIn).Round(10 * time.Millisecond).Seconds(), Injected: true}
				injected[f.Name] = lf
			}
			out.Faults = append(out.Faults, lf)
		}
		if rec != nil {
			for _, c := range rec.Live() {
				out.Cohorts = append(out.Cohorts, live.Cohort{Name: c.Name, Live: c.Live})
			}
			return out
		}
		all := live.Cohort{Name: "all"}
		all.InFlight = st.InFlight
		for a, n := range st.Answers {
			o := recording.AnswerOutcome(target.Answer(a)) // without a recording: the answer alone
			all.ByAttempt[o][0] += n
			all.Attempts += n
			if o == results.OK {
				all.OK += n
			}
		}
		out.Cohorts = []live.Cohort{all}
		return out
	}
}
