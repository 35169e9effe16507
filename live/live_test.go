package live

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

const pageAddr = "127.0.0.1:8088"

var local = control.Access{Bound: netip.MustParseAddrPort(pageAddr)}

// stream is what one viewer read from /live/events.
type stream struct {
	hello  hello
	frames []frame
}

// totals adds up a stream's deltas: by cohort, the attempts by outcome,
// then requests started, succeeded and failed.
func (s *stream) totals() [][results.NumOutcomes + 3]int64 {
	var out [][results.NumOutcomes + 3]int64
	for _, f := range s.frames {
		for len(out) < len(f.Cohorts) {
			out = append(out, [results.NumOutcomes + 3]int64{})
		}
		for i, c := range f.Cohorts {
			for o, v := range c.Outcomes {
				out[i][o] += v
			}
			out[i][results.NumOutcomes] += c.Requests
			out[i][results.NumOutcomes+1] += c.Succeeded
			out[i][results.NumOutcomes+2] += c.Failed
		}
	}
	return out
}

// read reads the event stream until it ends.
func read(t *testing.T, client *http.Client, token string, got *stream, done chan<- struct{}) {
	defer close(done)
	req, _ := http.NewRequest(http.MethodGet, "http://"+pageAddr+"/live/events", nil)
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Error(err)
		return
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Errorf("GET /live/events: %s, %s", resp.Status, resp.Header.Get("Content-Type"))
		return
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	event := ""
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "event: "):
			event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			data := []byte(strings.TrimPrefix(line, "data: "))
			if event == "hello" {
				if err := json.Unmarshal(data, &got.hello); err != nil {
					t.Error(err)
				}
			} else {
				var f frame
				if err := json.Unmarshal(data, &f); err != nil {
					t.Error(err)
				}
				got.frames = append(got.frames, f)
			}
		case line == "":
			event = ""
		}
	}
}

// TestStreamAddsUpToTimeline runs two cohorts' recorders for 3 s of
// virtual time, with a viewer from the start and one who arrives at
// 1.5 s, over the in-memory network: each viewer's deltas, history
// included, add up to exactly the recorders' final timelines, by outcome,
// and the frames come every 100 ms.
func TestStreamAddsUpToTimeline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		const dur = 3 * time.Second
		recs := []*results.Recorder{results.NewRecorder(dur, 4), results.NewRecorder(dur, 4)}
		origin := time.Now()
		var finished atomic.Bool
		src := func() Sample {
			s := Sample{Run: 1, Elapsed: min(time.Since(origin), dur), Duration: dur, Running: !finished.Load(), Done: finished.Load(),
				Faults: []Fault{{Name: "down", Kind: "outage", AtS: 1, ForS: 1}}}
			for i, r := range recs {
				s.Cohorts = append(s.Cohorts, Cohort{Name: []string{"a", "b"}[i], Live: r.Live()})
			}
			return s
		}
		srv := New(Options{Role: "scenario", Title: "t", Source: src, Access: local})
		n := &memnet.Network{}
		ln, err := n.Listen("tcp", pageAddr)
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: srv.Handler()}
		go func() { _ = hs.Serve(ln) }()
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan struct{})
		go func() { defer close(ran); srv.Run(ctx) }()
		client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return n.Dial(ctx, network, addr)
		}}}

		var early, late stream
		earlyDone, lateDone := make(chan struct{}), make(chan struct{})
		go read(t, client, "", &early, earlyDone)

		// The "run": each cohort's clients record attempts of every
		// outcome, some in flight across ticks.
		work := make(chan struct{})
		for c, r := range recs {
			go func() {
				defer func() { work <- struct{}{} }()
				sh := r.Shard(c)
				for i := 0; time.Since(origin) < dur-50*time.Millisecond; i++ {
					at := time.Since(origin)
					sh.InFlight(1)
					sh.Started(at)
					time.Sleep(time.Duration(1+i%37) * time.Millisecond)
					out := results.Outcome((i * (c + 1)) % int(results.NumOutcomes))
					sh.Attempt(results.Attempt{Sent: at, Latency: time.Since(origin) - at, Number: i % 5, Outcome: out}) // 0: a number not known
					sh.InFlight(-1)
					sh.Ended(time.Since(origin), out == results.OK)
				}
			}()
		}
		time.Sleep(1500 * time.Millisecond)
		go read(t, client, "", &late, lateDone)
		<-work
		<-work
		finished.Store(true)
		time.Sleep(dur - time.Since(origin) + 200*time.Millisecond)
		cancel()
		<-ran
		<-earlyDone
		<-lateDone
		_ = hs.Close()
		client.CloseIdleConnections()

		var want [][results.NumOutcomes + 3]int64
		for _, r := range recs {
			tl := r.Timeline(results.Bucket)
			var w [results.NumOutcomes + 3]int64
			for _, row := range tl.Rows {
				for o := 0; o < int(results.NumOutcomes); o++ {
					w[o] += row[o]
				}
				w[results.NumOutcomes] += row[results.SeriesRequests]
				w[results.NumOutcomes+1] += row[results.SeriesSucceeded]
				w[results.NumOutcomes+2] += row[results.SeriesFailed]
			}
			if w[0] == 0 || w[2] == 0 || w[results.NumOutcomes+2] == 0 {
				t.Fatalf("the fake run recorded too little: %v", w)
			}
			want = append(want, w)
		}
		for name, s := range map[string]*stream{"from the start": &early, "from 1.5 s": &late} {
			if s.hello.Role != "scenario" || len(s.hello.Outcomes) != int(results.NumOutcomes) || s.hello.TickMS != 100 {
				t.Errorf("viewer %s: hello %+v", name, s.hello)
			}
			got := s.totals()
			if len(got) != len(want) {
				t.Fatalf("viewer %s: %d cohorts, want %d", name, len(got), len(want))
			}
			for i := range want {
				if got[i] != want[i] {
					t.Errorf("viewer %s, cohort %d: the deltas add up to\n  %v\nthe timeline has\n  %v", name, i, got[i], want[i])
				}
			}
			// A frame every 100 ms from t = 0 to the end, and one more as
			// the server stops.
			if n := len(s.frames); n < 32 || n > 34 {
				t.Errorf("viewer %s: %d frames in %s, want one per 100 ms", name, n, dur)
			}
			for k := 1; k < len(s.frames) && s.frames[k].T < dur.Seconds(); k++ {
				if d := s.frames[k].T - s.frames[k-1].T; d < 0.099 || d > 0.101 {
					t.Errorf("viewer %s: frames %d and %d %.3f s apart, want 0.1", name, k-1, k, d)
					break
				}
			}
			last := s.frames[len(s.frames)-1]
			var m *meta
			for _, f := range s.frames {
				if f.Meta != nil {
					m = f.Meta
				}
			}
			if m == nil || !m.Done || len(m.Cohorts) != 2 || len(m.Faults) != 1 || m.DurationS != 3 {
				t.Errorf("viewer %s: last meta %+v, want done, 2 cohorts, the fault, 3 s", name, m)
			}
			if last.Cohorts[0].InFlight != 0 {
				t.Errorf("viewer %s: %d in flight at the end", name, last.Cohorts[0].InFlight)
			}
		}
		if early.frames[0].Meta == nil {
			t.Error("the first frame has no meta")
		}
	})
}

// TestSlowViewerDropped: a viewer that reads nothing is dropped once its
// buffer is full, without holding up the frames of one that reads, and
// the sampling runs once per tick however many viewers there are.
func TestSlowViewerDropped(t *testing.T) {
	var samples atomic.Int64
	s := New(Options{Source: func() Sample { samples.Add(1); return Sample{Run: 1} }, Access: local})
	slow, _, _, _ := s.subscribe("")
	fast, _, _, _ := s.subscribe("")
	var viewers []*viewer
	for range 8 {
		v, _, _, ok := s.subscribe("")
		if !ok {
			t.Fatal("subscribe refused")
		}
		viewers = append(viewers, v)
	}
	got := 0
	for i := 0; i < Buffer+5; i++ {
		s.step()
		for range len(fast.ch) {
			<-fast.ch
			got++
		}
		for _, v := range viewers {
			for range len(v.ch) {
				<-v.ch
			}
		}
	}
	if samples.Load() != Buffer+5 {
		t.Errorf("%d samples for %d ticks and 10 viewers, want one a tick", samples.Load(), Buffer+5)
	}
	if got != Buffer+5 {
		t.Errorf("the reading viewer got %d frames, want %d", got, Buffer+5)
	}
	n := 0
	for range slow.ch {
		n++
	}
	if n != Buffer {
		t.Errorf("the slow viewer's channel held %d frames before it was closed, want %d", n, Buffer)
	}
	if now, dropped := s.Viewers(); now != 9 || dropped != 1 {
		t.Errorf("Viewers() = %d, %d; want 9 fed and 1 dropped", now, dropped)
	}
}

// TestHerdOncePerSecond: the herd factors, which read a timeline column,
// are asked once a second (every tenth tick), and the frames carry them.
func TestHerdOncePerSecond(t *testing.T) {
	var calls atomic.Int64
	s := New(Options{Source: func() Sample { return Sample{Run: 1, Cohorts: []Cohort{{Name: "a"}}} }, Access: local,
		Herd: func() []float64 { calls.Add(1); return []float64{2.5} }})
	v, _, _, _ := s.subscribe("")
	with := 0
	for range 25 {
		s.step()
		var f frame
		if err := json.Unmarshal(<-v.ch, &f); err != nil {
			t.Fatal(err)
		}
		if len(f.Herd) == 1 && f.Herd[0] == 2.5 {
			with++
		}
	}
	if calls.Load() != 3 || with != 3 {
		t.Errorf("Herd called %d times in 25 ticks, %d frames with it; want 3 and 3 (ticks 0, 10, 20)", calls.Load(), with)
	}
}

// TestUnnumberedCohortSaysSo: a cohort whose attempts came without an
// attempt number is flagged in the meta, as its recording's summary marks
// its requests and success unmeasured; one with numbers is not.
func TestUnnumberedCohortSaysSo(t *testing.T) {
	var withNumbers, without results.Live
	withNumbers.ByAttempt[results.OK][1] = 5
	without.Unnumbered[results.OK] = 5
	s := New(Options{Source: func() Sample {
		return Sample{Run: 1, Cohorts: []Cohort{{Name: "numbered", Live: withNumbers}, {Name: "curl", Live: without}}}
	}, Access: local})
	v, _, _, _ := s.subscribe("")
	s.step()
	var f frame
	if err := json.Unmarshal(<-v.ch, &f); err != nil {
		t.Fatal(err)
	}
	if f.Meta == nil || len(f.Meta.Unnumbered) != 2 || f.Meta.Unnumbered[0] || !f.Meta.Unnumbered[1] {
		t.Errorf("meta %+v: want unnumbered [false true]", f.Meta)
	}
}

// TestHistoryBounded: a server running longer than History keeps at most
// History frames, and a late viewer still gets the meta in force.
func TestHistoryBounded(t *testing.T) {
	s := New(Options{Source: func() Sample { return Sample{Run: 1, Cohorts: []Cohort{{Name: "a"}}} }, Access: local})
	for range History + History/2 {
		s.step()
	}
	_, hb, hist, _ := s.subscribe("")
	if len(hist) > History {
		t.Errorf("%d frames kept, want at most %d", len(hist), History)
	}
	var h hello
	if err := json.Unmarshal(hb, &h); err != nil {
		t.Fatal(err)
	}
	if h.Meta == nil || len(h.Meta.Cohorts) != 1 {
		t.Errorf("hello's meta %+v after trimming, want the first frame's", h.Meta)
	}
}

// TestGuard: the page and its control calls pass control.Guard: the page
// itself opens without the token; the stream and every control call need
// it; a control call from another site, without the token or not JSON is
// refused and changes nothing.
func TestGuard(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		plan, _ := chaos.NewPlan([]chaos.Timed{{Name: "down", Kind: "outage", At: time.Second, For: time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}}, 0)
		ts, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Plan: plan, Hold: true,
			Config: model.Config{Concurrency: 8, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Millisecond)}})
		if err != nil {
			t.Fatal(err)
		}
		defer ts.Close()
		const token = "0123456789abcdef0123"
		a := local
		a.Token = token
		s := New(Options{Role: "target", Source: func() Sample { return Sample{} }, Access: a,
			Control: control.Handler(control.Options{Server: ts, Access: a})})
		h := s.Handler()
		do := func(method, path, origin, ctype, auth string) int {
			req := httptest.NewRequest(method, "http://"+pageAddr+path, strings.NewReader("{}"))
			if origin != "" {
				req.Header.Set("Origin", origin)
			}
			if ctype != "" {
				req.Header.Set("Content-Type", ctype)
			}
			if auth != "" {
				req.Header.Set("Authorization", "Bearer "+auth)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if path == "/" && rec.Code == http.StatusOK {
				if csp := rec.Header().Get("Content-Security-Policy"); !strings.Contains(csp, "default-src 'none'") || strings.Contains(csp, "unsafe") {
					t.Errorf("the page's Content-Security-Policy is %q", csp)
				}
			}
			return rec.Code
		}
		self := "http://" + pageAddr
		for _, c := range []struct {
			what                        string
			method, path, origin, ctype string
			auth                        string
			want                        int
		}{
			{"the page, without the token", "GET", "/", "", "", "", 200},
			{"the stream without the token", "GET", "/live/events", "", "", "", 401},
			{"the stream with a wrong token", "GET", "/live/events", "", "", "wrong-token-0123456789", 401},
			{"start without the token", "POST", "/control/start", self, "application/json", "", 401},
			{"start from another site", "POST", "/control/start", "http://evil.example", "application/json", token, 403},
			{"start as a form", "POST", "/control/start", self, "text/plain", token, 415},
			{"status without the token", "GET", "/control/status", "", "", "", 401},
			{"another path", "GET", "/nothing", "", "", "", 404},
		} {
			if got := do(c.method, c.path, c.origin, c.ctype, c.auth); got != c.want {
				t.Errorf("%s: %d, want %d", c.what, got, c.want)
			}
			if ts.Status().PlanRunning {
				t.Fatalf("%s started the plan", c.what)
			}
		}
		// A DNS-rebinding page sends its own Host.
		req := httptest.NewRequest("GET", "http://evil.example:8088/", nil)
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code != http.StatusForbidden {
			t.Errorf("the page under a foreign Host: %d, want 403", rec.Code)
		}
		if got := do("POST", "/control/start", self, "application/json", token); got != 200 || !ts.Status().PlanRunning {
			t.Errorf("start as the page sends it: %d, running %v; want 200 and the plan running", got, ts.Status().PlanRunning)
		}
	})
}

// TestViewersThatNeverReadDoNotLockOthersOut: 24 event streams whose
// clients never read (over the in-memory network, whose writes block at
// once) fill the page's places; a viewer who comes once they have
// stalled (StallAfter) takes the place of one of them and gets its
// stream, and the stalled one's handler ends. They once locked every
// other viewer out until their writes timed out (minutes, on sockets
// whose buffers take a long time to fill).
func TestViewersThatNeverReadDoNotLockOthersOut(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := New(Options{Role: "scenario", Title: "t", Source: func() Sample { return Sample{Run: 1, Running: true, Duration: time.Minute} }, Access: local})
		n := &memnet.Network{}
		ln, err := n.Listen("tcp", pageAddr)
		if err != nil {
			t.Fatal(err)
		}
		hs := &http.Server{Handler: srv.Handler(), ConnContext: ConnContext}
		go func() { _ = hs.Serve(ln) }()
		ctx, cancel := context.WithCancel(context.Background())
		ran := make(chan struct{})
		go func() { defer close(ran); srv.Run(ctx) }()
		var mute []net.Conn
		for range MaxViewers {
			c, err := n.Dial(context.Background(), "tcp", pageAddr)
			if err != nil {
				t.Fatal(err)
			}
			go func() { _, _ = io.WriteString(c, "GET /live/events HTTP/1.1\r\nHost: "+pageAddr+"\r\n\r\n") }()
			mute = append(mute, c)
		}
		synctest.Wait()
		if now, _ := srv.Viewers(); now != MaxViewers {
			t.Fatalf("%d streams fed, want the %d that never read", now, MaxViewers)
		}
		client := &http.Client{Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return n.Dial(ctx, network, addr)
		}}}
		get := func() int {
			resp, err := client.Get("http://" + pageAddr + "/live/events")
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				line, _ := bufio.NewReader(resp.Body).ReadString('\n')
				if line != "event: hello\n" {
					t.Errorf("the stream begins %q", line)
				}
			}
			return resp.StatusCode
		}
		if code := get(); code != http.StatusServiceUnavailable {
			t.Errorf("a viewer before any stalled: %d, want 503", code)
		}
		time.Sleep(StallAfter + 100*time.Millisecond)
		if code := get(); code != http.StatusOK {
			t.Errorf("a viewer once the mute ones stalled: %d, want 200", code)
		}
		if _, dropped := srv.Viewers(); dropped < 1 {
			t.Errorf("%d viewers dropped; want a stalled one dropped for the newcomer", dropped)
		}
		cancel()
		<-ran
		for _, c := range mute {
			_ = c.Close()
		}
		_ = hs.Close()
	})
}

// TestViewersPerClientBounded: one address off loopback holds at most
// MaxViewersPerClient streams; one more takes the place of its own stalled
// one, never another address's, and other addresses still get theirs.
func TestViewersPerClientBounded(t *testing.T) {
	s := New(Options{Source: func() Sample { return Sample{Run: 1} }, Access: local})
	var mine []*viewer
	for range MaxViewersPerClient {
		v, _, _, ok := s.subscribe("10.0.0.7")
		if !ok {
			t.Fatal("subscribe refused under the cap")
		}
		mine = append(mine, v)
	}
	other, _, _, ok := s.subscribe("10.0.0.8")
	if !ok {
		t.Fatal("another address refused")
	}
	other.writing.Store(time.Now().Add(-time.Minute).UnixNano()) // stalled, but not 10.0.0.7's
	if _, _, _, ok := s.subscribe("10.0.0.7"); ok {
		t.Errorf("a viewer beyond %d from one address, none of its own stalled: fed", MaxViewersPerClient)
	}
	mine[3].writing.Store(time.Now().Add(-StallAfter - time.Second).UnixNano())
	if _, _, _, ok := s.subscribe("10.0.0.7"); !ok {
		t.Errorf("a viewer from an address whose own stream stalled: refused")
	}
	if _, open := <-mine[3].ch; open || !mine[3].evicted.Load() {
		t.Errorf("the stalled stream was not dropped")
	}
	if other.evicted.Load() {
		t.Errorf("another address's stalled stream was dropped for 10.0.0.7's")
	}
	if now, _ := s.Viewers(); now != MaxViewersPerClient+1 {
		t.Errorf("%d viewers; want %d of 10.0.0.7's and 10.0.0.8's one", now, MaxViewersPerClient+1)
	}
	for range 4 {
		if _, _, _, ok := s.subscribe(""); !ok {
			t.Errorf("a loopback viewer refused under the total cap")
		}
	}
	for _, remote := range []struct{ addr, client string }{{"10.0.0.7:5123", "10.0.0.7"}, {"127.0.0.1:5123", ""}, {"[::1]:80", ""}, {"pipe", ""}, {"[2001:db8::1]:80", "2001:db8::1"}} {
		r := httptest.NewRequest(http.MethodGet, "/live/events", nil)
		r.RemoteAddr = remote.addr
		if got := clientOf(r); got != remote.client {
			t.Errorf("clientOf(%s) = %q, want %q", remote.addr, got, remote.client)
		}
	}
}
