package live

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/internal/charts"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/results"
)

// Defaults.
const (
	// Tick is how often a Server samples its source and pushes a frame:
	// each frame is one bin of the page's charts.
	Tick = 100 * time.Millisecond
	// Buffer is how many frames a viewer may fall behind before it is
	// dropped (its page reconnects and gets the history again).
	Buffer = 64
	// History is how many frames a Server keeps for viewers who arrive
	// late: 10 minutes at Tick. Older frames leave the page.
	History = 6000
	// MaxViewers is how many event streams a Server feeds at once. At
	// that many, a new viewer takes the place of the one stalled longest
	// (StallAfter); with none stalled it is answered 503.
	MaxViewers = 24
	// MaxViewersPerClient is how many of them one address off loopback
	// may hold (loopback's are all one address: there stalls alone
	// decide); one more takes the place of its own stalled one, or is
	// answered 503.
	MaxViewersPerClient = 8
	// StallAfter is how long a write to a viewer may be blocked (its
	// client reads nothing, its socket's buffers full) before the viewer
	// is stalled: a new viewer at the cap takes its place.
	StallAfter = 2 * time.Second
	// StreamBuffer is the socket send buffer of an event stream: small, so
	// that a client that reads nothing stalls after tens of kilobytes, not
	// megabytes (minutes of frames); a frame is about a hundred bytes a
	// cohort.
	StreamBuffer = 16 << 10
	// ReadCheck is how many bytes a stream begins with, at least: the
	// hello and the history, padded with an SSE comment (which a page
	// ignores) when they are fewer. A client reads them in a moment; one
	// that reads nothing fills its socket's buffers with them (the
	// kernel's first receive buffer is 128 KiB) and stalls at once, where
	// frames of a hundred bytes would take minutes to.
	ReadCheck = 256 << 10
	// writeTimeout bounds one write to a viewer, so that a stuck one
	// ends its handler.
	writeTimeout = 10 * time.Second
)

// Cohort is one cohort's running totals.
type Cohort struct {
	Name string
	results.Live
}

// Fault is one fault of the plan, relative to the run's t = 0.
type Fault struct {
	Name     string  `json:"name"`
	Kind     string  `json:"kind"`
	AtS      float64 `json:"at_s"`
	ForS     float64 `json:"for_s"`
	Injected bool    `json:"injected,omitempty"`
}

// Sample is what a Source says at one instant.
type Sample struct {
	// Run names the run the totals belong to: when it changes (a
	// scenario's next repetition, a target's plan restarted) the page
	// starts over and the totals count from zero again.
	Run int64
	// Elapsed is the time since the run's t = 0; Duration its planned
	// length (0 when it has none: a target serves until stopped).
	Elapsed, Duration time.Duration
	// Running is false before the run's t = 0 (a target held with
	// --hold) and once it has ended.
	Running bool
	// Done is true once the run has ended.
	Done    bool
	Cohorts []Cohort
	Faults  []Fault
	Active  []string
}

// Source gives the samples. It is called from one goroutine, once per tick.
type Source func() Sample

// Options configure a Server.
type Options struct {
	// Role is "scenario", "target" or "proxy"; Title the page's heading
	// (the scenario's name).
	Role, Title string
	Source      Source
	// Access is who may use the page: control.Guard's rules, with the
	// page's own listener as Bound.
	Access control.Access
	// Control, when set, is the control API served on the page's address
	// (control.Handler with this Access): the page shows its start, stop
	// and inject buttons.
	Control http.Handler
	// Tick is the sampling interval (Tick when 0).
	Tick time.Duration
	// Herd, when set, returns each cohort's herd factor so far (in the
	// order of the samples' cohorts); it reads a timeline column, so it is
	// called once a second (HerdEvery), not every tick.
	Herd func() []float64
}

// HerdEvery is how often a Server asks Options.Herd.
const HerdEvery = time.Second

// Server is the live page's server.
type Server struct {
	o Options

	mu      sync.Mutex
	viewers map[*viewer]struct{}
	hist    []entry // the current run's frames, at most History
	histRun int64
	first   *meta // the meta in force at hist[0]
	dropped int64 // viewers dropped for being slow

	// Sampling state, owned by Run's goroutine.
	prev     Sample
	prevMeta []byte
	started  bool
	ticks    int
}

type entry struct {
	data []byte
	meta *meta // non-nil when this frame changed the meta
}

// viewer is one event stream being fed.
type viewer struct {
	ch     chan []byte
	client string // its address, "" on loopback (MaxViewersPerClient)
	// writing is when the write under way to it began (UnixNano), 0 when
	// none is: a write blocked for StallAfter makes it stalled.
	writing atomic.Int64
	// mu guards kick, which ends a blocked write at once (the stream's
	// write deadline moved to now), nil once the handler has returned.
	mu   sync.Mutex
	kick func()
	// evicted is set once its place was given to another viewer: nothing
	// more is written to it.
	evicted atomic.Bool
}

// stalledFor is how long the write under way to v has been blocked; 0
// when none is.
func (v *viewer) stalledFor(now time.Time) time.Duration {
	if w := v.writing.Load(); w != 0 {
		return now.Sub(time.Unix(0, w))
	}
	return 0
}

// evict ends v's blocked write, so that its handler returns; its place
// is already taken from it.
func (v *viewer) evict() {
	v.evicted.Store(true)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.kick != nil {
		v.kick()
	}
}

// New returns a server; Run feeds it.
func New(o Options) *Server {
	if o.Tick <= 0 {
		o.Tick = Tick
	}
	return &Server{o: o, viewers: map[*viewer]struct{}{}}
}

// meta is what changes rarely: sent in a frame only when it changed.
type meta struct {
	DurationS float64  `json:"duration_s"`
	Running   bool     `json:"running"`
	Done      bool     `json:"done"`
	Cohorts   []string `json:"cohorts"`
	Faults    []Fault  `json:"faults"`
	// Unnumbered says, by cohort, that some of its attempts came without
	// an attempt number (a recording of clients that do not send one):
	// its requests and success are then not measured, as the recording's
	// summary says, and the page shows neither.
	Unnumbered []bool `json:"unnumbered"`
}

// frame is one tick: each cohort's deltas since the previous frame.
type frame struct {
	Run     int64         `json:"run"`
	T       float64       `json:"t"` // elapsed seconds
	Cohorts []cohortDelta `json:"c"`
	Active  []string      `json:"active"`
	Meta    *meta         `json:"meta,omitempty"`
	// Herd is each cohort's herd factor so far, in frames where it was
	// computed (once a second).
	Herd []float64 `json:"h,omitempty"`
}

type cohortDelta struct {
	// Outcomes are the attempts that ended since the last frame, by
	// outcome (results.Outcome order, the hello's outcomes).
	Outcomes  [results.NumOutcomes]int64 `json:"o"`
	Requests  int64                      `json:"q"` // logical requests started
	Succeeded int64                      `json:"s"`
	Failed    int64                      `json:"f"`
	InFlight  int64                      `json:"i"` // attempts on the wire now (not a delta)
}

// hello is the first event of a stream.
type hello struct {
	Role     string   `json:"role"`
	Title    string   `json:"title"`
	TickMS   float64  `json:"tick_ms"`
	Control  bool     `json:"control"`
	Outcomes []string `json:"outcomes"`
	Colors   colors   `json:"colors"`
	Run      int64    `json:"run"`
	Meta     *meta    `json:"meta"`
}

// colors are the outcomes' and cohorts' colours, the report's
// (internal/charts).
type colors struct {
	Outcomes map[string]string `json:"outcomes"`
	Palette  []string          `json:"palette"`
}

// Run samples the source every tick and feeds the viewers until ctx ends;
// then it sends a last frame and ends every stream.
func (s *Server) Run(ctx context.Context) {
	t := time.NewTicker(s.o.Tick)
	defer t.Stop()
	s.step()
	for {
		select {
		case <-ctx.Done():
			s.ticks = -1 // the last frame, with the last herd factors
			s.step()
			s.closeAll()
			return
		case <-t.C:
			s.step()
		}
	}
}

// step takes one sample and sends its frame.
func (s *Server) step() {
	cur := s.o.Source()
	last := s.ticks < 0
	wasDone := s.started && s.prev.Done && s.prev.Run == cur.Run
	f, m := s.delta(cur)
	if wasDone && m == nil && !last {
		return // an ended run changes no more: no frame until the next run, or the last
	}
	if s.o.Herd != nil && (last || s.ticks%max(1, int(HerdEvery/s.o.Tick)) == 0) {
		f.Herd = s.o.Herd()
	}
	s.ticks++
	b, err := json.Marshal(f)
	if err != nil {
		return // a frame of numbers and names always encodes
	}
	s.publish(cur.Run, b, m)
}

// delta turns a sample into a frame against the previous one. A cohort
// whose totals went down (a new window of a recording) counts from zero.
func (s *Server) delta(cur Sample) (frame, *meta) {
	if !s.started || cur.Run != s.prev.Run {
		s.prev, s.prevMeta = Sample{Run: cur.Run}, nil
		s.started = true
	}
	f := frame{Run: cur.Run, T: cur.Elapsed.Round(time.Millisecond).Seconds(), Cohorts: make([]cohortDelta, len(cur.Cohorts)), Active: cur.Active}
	if f.Active == nil {
		f.Active = []string{}
	}
	m := &meta{DurationS: cur.Duration.Seconds(), Running: cur.Running, Done: cur.Done, Cohorts: make([]string, len(cur.Cohorts)), Faults: cur.Faults, Unnumbered: make([]bool, len(cur.Cohorts))}
	if m.Faults == nil {
		m.Faults = []Fault{}
	}
	for i, c := range cur.Cohorts {
		m.Cohorts[i] = c.Name
		for _, n := range c.Unnumbered {
			m.Unnumbered[i] = m.Unnumbered[i] || n > 0
		}
		var p results.Live
		if i < len(s.prev.Cohorts) {
			p = s.prev.Cohorts[i].Live
		}
		if c.Attempts < p.Attempts || c.Requests < p.Requests || c.Succeeded < p.Succeeded || c.Failed < p.Failed {
			p = results.Live{}
		}
		d := &f.Cohorts[i]
		for o := range d.Outcomes {
			d.Outcomes[o] = outcomeTotal(c.Live, o) - outcomeTotal(p, o)
		}
		d.Requests, d.Succeeded, d.Failed, d.InFlight = c.Requests-p.Requests, c.Succeeded-p.Succeeded, c.Failed-p.Failed, c.InFlight
	}
	mb, _ := json.Marshal(m)
	var changed *meta
	if !bytes.Equal(mb, s.prevMeta) {
		f.Meta, changed = m, m
		s.prevMeta = mb
	}
	s.prev = cur
	return f, changed
}

func outcomeTotal(l results.Live, o int) int64 {
	n := l.Unnumbered[o]
	for _, v := range l.ByAttempt[o] {
		n += v
	}
	return n
}

// publish keeps a frame in the history and gives it to every viewer; a
// viewer whose buffer is full is dropped.
func (s *Server) publish(run int64, b []byte, m *meta) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if run != s.histRun {
		s.hist, s.histRun, s.first = s.hist[:0], run, nil
	}
	if len(s.hist) == 0 {
		s.first = m
	}
	if len(s.hist) >= History {
		// Drop the oldest tenth at once, so trimming is rare.
		n := History / 10
		for _, e := range s.hist[:n] {
			if e.meta != nil {
				s.first = e.meta
			}
		}
		s.hist = append(s.hist[:0], s.hist[n:]...)
	}
	s.hist = append(s.hist, entry{data: b, meta: m})
	for v := range s.viewers {
		select {
		case v.ch <- b:
		default:
			delete(s.viewers, v)
			close(v.ch)
			s.dropped++
		}
	}
}

func (s *Server) closeAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for v := range s.viewers {
		delete(s.viewers, v)
		close(v.ch)
	}
	s.viewers = nil // no more subscriptions
}

// subscribe registers a viewer from client (its address, "" on
// loopback) and returns its hello and the history so far, taken under the
// same lock so that no frame is missed or repeated. At MaxViewers, or at
// MaxViewersPerClient of client's, it takes the place of the viewer (of
// client's, for the latter) stalled longest, if one is.
func (s *Server) subscribe(client string) (*viewer, []byte, [][]byte, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.viewers == nil {
		return nil, nil, nil, false
	}
	if !s.makeRoom(client, time.Now()) {
		return nil, nil, nil, false
	}
	h := hello{Role: s.o.Role, Title: s.o.Title, TickMS: float64(s.o.Tick) / float64(time.Millisecond), Control: s.o.Control != nil,
		Colors:   colors{Outcomes: charts.Outcomes, Palette: charts.Palette},
		Outcomes: outcomeNames(), Run: s.histRun, Meta: s.first}
	hb, _ := json.Marshal(h)
	hist := make([][]byte, len(s.hist))
	for i, e := range s.hist {
		hist[i] = e.data
	}
	v := &viewer{ch: make(chan []byte, Buffer), client: client}
	s.viewers[v] = struct{}{}
	return v, hb, hist, true
}

// makeRoom reports whether a viewer from client may be fed, making room
// for it at a cap by dropping the viewer stalled longest (of client's
// own at MaxViewersPerClient) when one is. The caller holds s.mu.
func (s *Server) makeRoom(client string, now time.Time) bool {
	for {
		mine := 0
		if client != "" {
			for v := range s.viewers {
				if v.client == client {
					mine++
				}
			}
		}
		full, own := len(s.viewers) >= MaxViewers, mine >= MaxViewersPerClient
		if !full && !own {
			return true
		}
		var victim *viewer
		longest := StallAfter - 1
		for v := range s.viewers {
			if own && v.client != client {
				continue
			}
			if d := v.stalledFor(now); d > longest {
				victim, longest = v, d
			}
		}
		if victim == nil {
			return false
		}
		delete(s.viewers, victim)
		close(victim.ch)
		s.dropped++
		victim.evict()
	}
}

// clientOf is the IP address a request came from, for
// MaxViewersPerClient: "" on loopback, where every viewer has the same,
// and for a connection with no IP address (a pipe in tests).
func clientOf(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	if ip := net.ParseIP(host); ip != nil && !ip.IsLoopback() {
		return ip.String()
	}
	return ""
}

type connKey struct{}

// ConnContext is, as an http.Server's ConnContext, what lets the event
// stream reach its socket, to make its send buffer small (StreamBuffer):
// set it on the server that serves Handler.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, connKey{}, c)
}

// smallBuffer sets the send buffer of the socket r came on to
// StreamBuffer, when the server has ConnContext and r came on TCP.
func smallBuffer(r *http.Request) {
	if c, ok := r.Context().Value(connKey{}).(net.Conn); ok {
		if tc := netguard.Socket(c); tc != nil {
			_ = tc.SetWriteBuffer(StreamBuffer)
		}
	}
}

func (s *Server) unsubscribe(v *viewer) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.viewers[v]; ok {
		delete(s.viewers, v)
		close(v.ch)
	}
}

// Viewers returns how many event streams are being fed now, and how many
// were dropped for falling behind.
func (s *Server) Viewers() (now int, dropped int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.viewers), s.dropped
}

func outcomeNames() []string {
	n := make([]string, results.NumOutcomes)
	for o := range n {
		n[o] = results.Outcome(o).String()
	}
	return n
}

// Handler returns the page, its event stream (GET /live/events) and, with
// Options.Control, the control API (/control/...), every request behind
// control.Guard. The page itself holds no data and is served without the
// token (so that a browser can open it); everything else needs it.
func (s *Server) Handler() http.Handler {
	open := s.o.Access
	open.Token = ""
	mux := http.NewServeMux()
	mux.Handle("GET /{$}", control.Guard(open, http.HandlerFunc(s.page)))
	mux.Handle("GET /live/events", control.Guard(s.o.Access, http.HandlerFunc(s.events)))
	if s.o.Control != nil {
		mux.Handle("/control/", s.o.Control)
	}
	return control.Guard(open, mux) // anything else: the guard's checks, then 404
}

// events is the Server-Sent Events stream: a hello, the history, then a
// frame per tick until the run ends or the viewer falls behind.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	v, hb, hist, ok := s.subscribe(clientOf(r))
	if !ok {
		http.Error(w, "too many viewers of this live page (at most "+itoa(MaxViewers)+", "+itoa(MaxViewersPerClient)+" from one address off loopback), none of them stalled, or the run has ended", http.StatusServiceUnavailable)
		return
	}
	defer s.unsubscribe(v)
	rc := http.NewResponseController(w)
	v.mu.Lock()
	v.kick = func() { _ = rc.SetWriteDeadline(time.Now()) }
	v.mu.Unlock()
	defer func() {
		v.mu.Lock()
		v.kick = nil
		v.mu.Unlock()
	}()
	smallBuffer(r)
	h := w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Content-Type-Options", "nosniff")
	w.WriteHeader(http.StatusOK)
	var buf bytes.Buffer
	buf.WriteString("event: hello\ndata: ")
	buf.Write(hb)
	buf.WriteString("\n\n")
	for _, b := range hist {
		writeEvent(&buf, b)
	}
	if pad := ReadCheck - buf.Len(); pad > 0 {
		buf.WriteString(": ")
		buf.Write(bytes.Repeat([]byte{' '}, pad))
		buf.WriteString("\n\n")
	}
	if !v.send(w, rc, &buf) {
		return
	}
	for {
		select {
		case <-r.Context().Done():
			return
		case b, ok := <-v.ch:
			if !ok {
				return
			}
			writeEvent(&buf, b)
			// Whatever else is already waiting goes in the same write.
			for more := true; more; {
				select {
				case b, ok := <-v.ch:
					if !ok {
						_ = v.send(w, rc, &buf)
						return
					}
					writeEvent(&buf, b)
				default:
					more = false
				}
			}
			if !v.send(w, rc, &buf) {
				return
			}
		}
	}
}

func writeEvent(buf *bytes.Buffer, b []byte) {
	buf.WriteString("data: ")
	buf.Write(b)
	buf.WriteString("\n\n")
}

// send writes buf to v's stream and flushes it, marked as under way
// (viewer.writing) meanwhile.
func (v *viewer) send(w http.ResponseWriter, rc *http.ResponseController, buf *bytes.Buffer) bool {
	if v.evicted.Load() {
		return false
	}
	_ = rc.SetWriteDeadline(time.Now().Add(writeTimeout))
	v.writing.Store(time.Now().UnixNano())
	defer v.writing.Store(0)
	_, err := w.Write(buf.Bytes())
	buf.Reset()
	if err == nil {
		err = rc.Flush()
	}
	return err == nil
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }
