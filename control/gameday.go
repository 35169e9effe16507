package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/target"
)

// GameDay is a standalone target's or proxy's run at a game day: its
// control API served on its own address until the context ends or
// ExitAfter passes, the faults logged as they come and go.
type GameDay struct {
	// API is the control API's: Server, Metrics, Check and Results; Serve
	// sets its Notify (to Logf) and Access.
	API Options
	// Addr is the control API's address; Listen opens it (the loopback
	// interlock's, or a test's in-memory network).
	Addr   string
	Listen func(network, addr string) (net.Listener, error)
	// Access returns the guard's rules for the address bound.
	Access func(bound net.Addr) Access
	// ExitAfter, when above 0, ends the run after this long.
	ExitAfter time.Duration
	// Recording says what is recorded, for the log.
	Recording string
	// UI, when set, starts the live page once the control API listens;
	// control returns the control API for the page's own address (nil: no
	// buttons). Its Close is called when the run ends.
	UI func(control func(Access) http.Handler) (io.Closer, error)
	// Close closes the server; its error is returned in Ended.CloseErr.
	Close func() error
	// Logf is the server's log.
	Logf func(format string, args ...any)
}

// ErrControlListen wraps Serve's error when the control API cannot listen.
var ErrControlListen = errors.New("control API: cannot listen")

// Ended is how a game day's serving ended.
type Ended struct {
	// Stopped is the control API's error if it stopped on its own.
	Stopped error
	// CloseErr is the server's Close error.
	CloseErr error
	// Answers are the server's answers, counted by kind.
	Answers [target.NumAnswers]int64
}

// Serve runs the game day: the control API (and the live page) served
// until ctx ends or ExitAfter passes; then the page, the API and the
// server closed. An error means it never started: the control API could
// not listen (ErrControlListen) or the live page not start; the server is
// closed then too.
func Serve(ctx context.Context, g GameDay) (Ended, error) {
	logf, srv := g.Logf, g.API.Server
	ln, err := g.Listen("tcp", g.Addr)
	if err != nil {
		_ = g.Close()
		return Ended{}, fmt.Errorf("%w on %s: %v", ErrControlListen, g.Addr, err)
	}
	// The control API has its own connection cap, so that however many
	// connections the traffic port holds, the controls still answer; and
	// at that cap an idle or slow connection gives way to a new one, so
	// that its own idle clients do not lock it out either.
	limits := netguard.ControlLimits()
	o := g.API
	o.Notify = func(msg string) { logf("%s", msg) }
	o.Access = g.Access(ln.Addr())
	cs := limits.Server(Handler(o))
	served := make(chan error, 1)
	go func() { served <- limits.Serve(cs, ln) }()

	var ui io.Closer
	if g.UI != nil {
		ui, err = g.UI(func(a Access) http.Handler {
			po := o
			po.Access, po.Metrics = a, nil
			return Handler(po)
		})
		if err != nil {
			_ = cs.Close()
			_ = g.Close()
			return Ended{}, err
		}
	}

	auth := ""
	if o.Access.Token != "" {
		auth = "; every call needs the control token"
	}
	logf("control API and metrics on http://%s (GET /control/status, POST /control/start|stop|inject|results with Content-Type: application/json, GET /metrics%s)", ln.Addr(), auth)
	logf("%s", g.Recording)
	if st := srv.Status(); st.PlanRunning {
		logf("chaos plan: %s; started now", DescribePlan(srv.Plan()))
	} else {
		logf("chaos plan: %s; waiting for POST http://%s/control/start", DescribePlan(srv.Plan()), ln.Addr())
	}
	if g.ExitAfter > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, g.ExitAfter)
		defer cancel()
	}

	// Log the faults as they start and end (for the room at a game day).
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var active []string
	var end Ended
loop:
	for {
		select {
		case <-ctx.Done():
			break loop
		case err := <-served:
			end.Stopped = err
			break loop
		case <-tick.C:
		}
		st := srv.Status()
		for _, n := range st.Active {
			if !slices.Contains(active, n) {
				logf("fault on: %s%s", n, faultTime(st, n, true))
			}
		}
		for _, n := range active {
			if !slices.Contains(st.Active, n) {
				logf("fault off: %s%s", n, faultTime(st, n, false))
			}
		}
		active = st.Active
	}
	if errors.Is(ctx.Err(), context.DeadlineExceeded) {
		logf("--exit-after %s passed; stopping", g.ExitAfter)
	}
	if ui != nil {
		_ = ui.Close()
	}
	_ = cs.Close()
	end.CloseErr = g.Close()
	st := srv.Status()
	end.Answers = st.Answers
	if st.GRPC {
		logf("stopped; answered %s", CodesText(st.Codes))
	} else {
		logf("stopped; answered %s", AnswersText(end.Answers))
	}
	return end, nil
}

// DescribePlan writes a chaos plan's faults in one line.
func DescribePlan(p *chaos.Plan) string {
	if p == nil || len(p.Faults()) == 0 {
		return "no faults"
	}
	var parts []string
	for _, t := range p.Faults() {
		parts = append(parts, fmt.Sprintf("%s (%s) %s–%s", t.Name, t.Kind, TrimDuration(t.At), TrimDuration(t.End())))
	}
	return strings.Join(parts, ", ")
}

// TrimDuration writes d as time.Duration does, without a trailing "0s"
// after minutes ("5m", not "5m0s").
func TrimDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	return s
}

// faultTime says when fault name started (or ended) on the plan's clock:
// the scheduled instant, not when the log noticed.
func faultTime(st target.Status, name string, start bool) string {
	for _, f := range st.Faults {
		if f.Name != name || f.Active != start {
			continue
		}
		if f.Injected || !st.PlanRunning {
			return " (injected)"
		}
		at := st.PlanElapsed + f.StartsIn
		if !start {
			at = st.PlanElapsed + f.EndsIn
		}
		return fmt.Sprintf(" (plan t=%s)", TrimDuration(at.Round(time.Millisecond)))
	}
	return ""
}

// codeNames are the gRPC status codes as gRPC's documentation writes
// them, by code.
var codeNames = [target.NumCodes]string{"OK", "CANCELLED", "UNKNOWN", "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
	"ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
	"UNIMPLEMENTED", "INTERNAL", "UNAVAILABLE", "DATA_LOSS", "UNAUTHENTICATED"}

// CodesText writes a gRPC server's calls by status code in one line: OK
// first, then every other code that ended a call, in gRPC's order.
func CodesText(c [target.NumCodes]int64) string {
	parts := []string{fmt.Sprintf("%s %d", codeNames[0], c[0])}
	for i := 1; i < len(c); i++ {
		if c[i] > 0 {
			parts = append(parts, fmt.Sprintf("%s %d", codeNames[i], c[i]))
		}
	}
	return strings.Join(parts, ", ")
}

// AnswersText writes a server's answers by kind in one line.
func AnswersText(a [target.NumAnswers]int64) string {
	var parts []string
	for i, n := range a {
		parts = append(parts, fmt.Sprintf("%s %d", target.Answer(i), n))
	}
	return strings.Join(parts, ", ")
}
