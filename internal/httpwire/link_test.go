package httpwire

import (
	"bufio"
	"context"
	"crypto/tls"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"go.uber.org/goleak"
)

// rawServer is a TCP server on 127.0.0.1 whose every connection is handled
// by serve, which sees the raw bytes; it counts connections and requests.
type rawServer struct {
	ln       net.Listener
	conns    atomic.Int64
	requests atomic.Int64
	wg       sync.WaitGroup
}

func newRawServer(t *testing.T, serve func(s *rawServer, c *net.TCPConn, br *bufio.Reader)) *rawServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip("no loopback:", err)
	}
	s := &rawServer{ln: ln}
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			s.conns.Add(1)
			s.wg.Add(1)
			go func() {
				defer s.wg.Done()
				defer c.Close()
				serve(s, c.(*net.TCPConn), bufio.NewReader(c))
			}()
		}
	}()
	t.Cleanup(func() { _ = ln.Close(); s.wg.Wait() })
	return s
}

func (s *rawServer) url() string { return "http://" + s.ln.Addr().String() + "/work" }

// readRequest reads one request's head, counting it; false at EOF.
func (s *rawServer) readRequest(br *bufio.Reader) (*http.Request, bool) {
	req, err := http.ReadRequest(br)
	if err != nil {
		return nil, false
	}
	_, _ = io.Copy(io.Discard, req.Body)
	s.requests.Add(1)
	return req, true
}

// reset closes c with an RST, as a crashed target does.
func reset(c *net.TCPConn) {
	_ = c.SetLinger(0)
	_ = c.Close()
}

// attemptOn runs one attempt of a swarm with timeout on l.
func attemptOn(s *Attempts, l *Link) (results.Outcome, time.Duration) {
	_, _, o, _, ra, _ := s.Send(context.Background(), l, nil)
	return o, ra
}

func newTestLink(t *testing.T, url string, dial DialFunc) (*Attempts, *Link) {
	t.Helper()
	ep, err := NewEndpoint(url, dial, nil)
	if err != nil {
		t.Fatal(err)
	}
	l := NewLink(ep)
	t.Cleanup(l.close)
	return &Attempts{Timeout: 5 * time.Second, Origin: time.Now()}, l
}

// Each answer maps to its outcome, and keep-alive connections are reused.
func TestLinkOutcomesOverTCP(t *testing.T) {
	answers := []string{
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n",
		"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nRetry-After: 2\r\n\r\n",
		"HTTP/1.1 429 Too Many Requests\r\nRetry-After: 3\r\nContent-Length: 4\r\n\r\nslow",
		"HTTP/1.1 409 Conflict\r\nContent-Length: 0\r\n\r\n",
		"HTTP/1.1 103 Early Hints\r\nLink: </x>\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nok\n\r\n0\r\n\r\n",
		"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nRetry-After: 9\r\n\r\nok\n", // pushback only means something on a failure
	}
	want := []struct {
		o  results.Outcome
		ra time.Duration
	}{{results.OK, 0}, {results.HTTP5xx, 2 * time.Second}, {results.HTTP429, 3 * time.Second}, {results.HTTP4xx, 0}, {results.OK, 0}, {results.OK, 0}}
	var paths []string
	var mu sync.Mutex
	srv := newRawServer(t, func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		for i := 0; ; i++ {
			req, ok := s.readRequest(br)
			if !ok {
				return
			}
			mu.Lock()
			paths = append(paths, req.Method+" "+req.URL.RequestURI()+" "+req.Host)
			mu.Unlock()
			_, _ = io.WriteString(c, answers[i%len(answers)])
		}
	})
	s, l := newTestLink(t, srv.url()+"?q=1", nil)
	for i, w := range want {
		o, ra := attemptOn(s, l)
		if o != w.o || ra != w.ra {
			t.Errorf("answer %d: %s, Retry-After %s; want %s, %s", i, o, ra, w.o, w.ra)
		}
	}
	if n := srv.conns.Load(); n != 1 {
		t.Errorf("%d connections for %d attempts, want 1 (kept alive)", n, len(want))
	}
	host := srv.ln.Addr().String()
	if paths[0] != "POST /work?q=1 "+host {
		t.Errorf("request line and host %q, want %q", paths[0], "POST /work?q=1 "+host)
	}
}

// The request is what net/http would send for the same URL, credentials
// included, but for the User-Agent.
func TestLinkRequestMatchesNetHTTP(t *testing.T) {
	var got []*http.Request
	var mu sync.Mutex
	srv := newRawServer(t, func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		for {
			req, ok := s.readRequest(br)
			if !ok {
				return
			}
			mu.Lock()
			got = append(got, req)
			mu.Unlock()
			_, _ = io.WriteString(c, "HTTP/1.1 204 No Content\r\n\r\n")
		}
	})
	url := "http://user:p%40ss@" + srv.ln.Addr().String() + "/a%20b/c?x=1&y=%2F"
	s, l := newTestLink(t, url, nil)
	if o, _ := attemptOn(s, l); o != results.OK {
		t.Fatalf("attempt: %s", o)
	}
	tr := &http.Transport{}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr}).Post(url, "", http.NoBody)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	mu.Lock()
	defer mu.Unlock()
	ours, theirs := got[0], got[1]
	for _, h := range []string{"Authorization", "Content-Length"} {
		if ours.Header.Get(h) != theirs.Header.Get(h) {
			t.Errorf("%s: %q, net/http sends %q", h, ours.Header.Get(h), theirs.Header.Get(h))
		}
	}
	if ours.Method != theirs.Method || ours.RequestURI != theirs.RequestURI || ours.Host != theirs.Host || ours.Proto != theirs.Proto {
		t.Errorf("request %s %s %s host %s; net/http sends %s %s %s host %s",
			ours.Method, ours.RequestURI, ours.Proto, ours.Host, theirs.Method, theirs.RequestURI, theirs.Proto, theirs.Host)
	}
}

// A request the target resets after reading it is a reset, sent once; a
// connection the target closed while idle (a crash between attempts) is
// opened again by the next attempt, which succeeds: nothing of the request
// had reached the target.
func TestLinkResetsAndReconnects(t *testing.T) {
	t.Cleanup(func() { goleak.VerifyNone(t) }) // after the server's cleanup
	var n atomic.Int64
	answered := make(chan struct{})
	srv := newRawServer(t, func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		for {
			if _, ok := s.readRequest(br); !ok {
				return
			}
			switch n.Add(1) {
			case 1: // answer, then crash while the client is idle
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
				<-answered // the client has read the answer
				reset(c)
				return
			case 2: // a crash with the request in hand
				reset(c)
				return
			case 3: // closed without an answer
				return
			default:
				_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
			}
		}
	})
	s, l := newTestLink(t, srv.url(), nil)
	if o, _ := attemptOn(s, l); o != results.OK {
		t.Fatalf("first attempt: %s, want ok", o)
	}
	close(answered)
	// Wait until the RST has arrived: the idle connection is dead.
	for srv.conns.Load() == 1 && l.nc != nil {
		var b [1]byte
		_ = l.nc.SetReadDeadline(time.Now().Add(time.Millisecond))
		if _, err := l.nc.Read(b[:]); err != nil && !isTimeout(err) {
			break
		}
	}
	_ = l.nc.SetReadDeadline(time.Time{})
	if o, _ := attemptOn(s, l); o != results.Reset {
		t.Errorf("second attempt (the target resets it): %s, want reset", o)
	}
	if o, _ := attemptOn(s, l); o != results.Reset {
		t.Errorf("third attempt (the target closes without answering): %s, want reset", o)
	}
	if o, _ := attemptOn(s, l); o != results.OK {
		t.Errorf("fourth attempt: %s, want ok", o)
	}
	if got := srv.requests.Load(); got != 4 {
		t.Errorf("the target read %d requests, want 4: one per attempt, none repeated", got)
	}
	if got := srv.conns.Load(); got != 4 {
		t.Errorf("%d connections, want 4 (the first, then a new one after each crash)", got)
	}
}

func isTimeout(err error) bool {
	ne, ok := err.(net.Error)
	return ok && ne.Timeout()
}

// A connection the server closed cleanly while idle (an idle timeout's
// FIN, which a write would not notice) is noticed before the next write
// once it has been idle long enough, and the attempt goes on a new one.
func TestLinkNoticesIdleClose(t *testing.T) {
	closed := make(chan struct{}, 1)
	srv := newRawServer(t, func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		if _, ok := s.readRequest(br); ok {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		}
		_ = c.Close()
		closed <- struct{}{}
	})
	s, l := newTestLink(t, srv.url(), nil)
	if o, _ := attemptOn(s, l); o != results.OK {
		t.Fatalf("first attempt: %s, want ok", o)
	}
	<-closed
	if l.stale(time.Now()) {
		t.Fatal("a connection idle for less than staleAfter was checked")
	}
	l.idle = time.Now().Add(-2 * staleAfter) // as if idle a while
	for i := 0; !l.stale(time.Now()); i++ {
		if i == 1000 {
			t.Fatal("the server's FIN never showed")
		}
		time.Sleep(time.Millisecond) // the FIN is on its way over loopback
	}
	if o, _ := attemptOn(s, l); o != results.OK {
		t.Fatalf("second attempt: %s, want ok on a new connection", o)
	}
	if got := srv.conns.Load(); got != 2 {
		t.Errorf("%d connections, want 2", got)
	}
}

// A connection idle for longer than the attempts' timeout is still used:
// the last attempt's deadline, long past, does not make it look closed.
func TestLinkIdleBeyondTimeout(t *testing.T) {
	srv := newRawServer(t, func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		for {
			if _, ok := s.readRequest(br); !ok {
				return
			}
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
		}
	})
	s, l := newTestLink(t, srv.url(), nil)
	for i := 0; i < 2; i++ {
		if o, _ := attemptOn(s, l); o != results.OK {
			t.Fatalf("attempt %d: %s, want ok", i+1, o)
		}
		// As if the attempt's timeout had passed while idle, long enough
		// for the idle check.
		if err := l.nc.SetReadDeadline(time.Now().Add(-time.Second)); err != nil {
			t.Fatal(err)
		}
		l.idle = time.Now().Add(-2 * staleAfter)
	}
	if got := srv.conns.Load(); got != 1 {
		t.Errorf("%d connections, want 1", got)
	}
}

// A Connection: close answer makes the next attempt open a new connection.
func TestLinkConnectionClose(t *testing.T) {
	srv := newRawServer(t, func(s *rawServer, c *net.TCPConn, br *bufio.Reader) {
		if _, ok := s.readRequest(br); ok {
			_, _ = io.WriteString(c, "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
		}
	})
	s, l := newTestLink(t, srv.url(), nil)
	for i := 0; i < 3; i++ {
		if o, _ := attemptOn(s, l); o != results.OK {
			t.Fatalf("attempt %d: %s", i+1, o)
		}
	}
	if got := srv.conns.Load(); got != 3 {
		t.Errorf("%d connections, want 3", got)
	}
}

// Nobody listening: refused. A URL the swarm cannot use: error.
func TestLinkRefusedAndBadURL(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Skip(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	s, l := newTestLink(t, "http://"+addr+"/", nil)
	if o, _ := attemptOn(s, l); o != results.Refused {
		t.Errorf("closed port: %s, want refused", o)
	}
	s = &Attempts{Origin: time.Now()}
	ep, err := NewEndpoint("ftp://x/", nil, nil)
	if err == nil {
		t.Fatal("NewEndpoint accepted ftp://")
	}
	if o, _ := attemptOn(s, NewLink(&Endpoint{err: err})); o != results.Error {
		t.Errorf("bad URL: %s, want error", o)
	}
	_ = ep
}

// https targets work over the client's own TLS connection.
func TestLinkTLS(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusAccepted)
	}))
	defer srv.Close()
	s, l := newTestLink(t, srv.URL+"/", nil)
	l.ep.tls.RootCAs = srv.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs
	for i := 0; i < 2; i++ {
		if o, _ := attemptOn(s, l); o != results.OK {
			t.Fatalf("attempt %d: %s, want ok", i+1, o)
		}
	}
	if _, ok := l.nc.(*tls.Conn); !ok {
		t.Errorf("connection %T, want TLS", l.nc)
	}
}

func TestParseVersion(t *testing.T) {
	for in, want := range map[string]int64{
		"0": 0, "42\n": 42, " 7 ": 7, "18446744073709551615": -1, "18446744073709551616": -2,
		"": -2, "x": -2, "4 2": -2, "-1": -2, "99999999999999999999999": -2,
	} {
		v, ok := parseVersion([]byte(in))
		switch {
		case want == -2 && ok:
			t.Errorf("parseVersion(%q) = %d, want an error", in, v)
		case want == -1 && (!ok || v != 1<<64-1):
			t.Errorf("parseVersion(%q) = %d, %v; want max uint64", in, v, ok)
		case want >= 0 && (!ok || v != uint64(want)):
			t.Errorf("parseVersion(%q) = %d, %v; want %d", in, v, ok, want)
		}
	}
}

// A link given back to a full pool is closed and dropped, never kept idle
// to be handed out closed.
func TestLinkPoolFullClosesAndDrops(t *testing.T) {
	p := &Pool{set: &LinkSet{}}
	for range maxIdle {
		p.Put(NewLink(nil))
	}
	a, b := net.Pipe()
	defer a.Close()
	extra := NewLink(nil)
	extra.nc = b
	p.Put(extra)
	if len(p.idle) != maxIdle {
		t.Fatalf("%d idle links after putting one into a full pool, want %d", len(p.idle), maxIdle)
	}
	for _, l := range p.idle {
		if l == extra {
			t.Fatal("the link put into a full pool is in the idle list")
		}
	}
	if extra.nc != nil {
		t.Error("the link put into a full pool was not closed")
	}
	if _, err := b.Write([]byte("x")); err == nil {
		t.Error("its connection still writes")
	}
}

// TestEarlyAfterCloseNeitherRacesNorPanics: a read that times out on a
// kept deadline after another goroutine closed the link (a relayed call
// whose caller went away) read the deadline without the lock, a data
// race, and then set a deadline on the closed link's nil connection.
func TestEarlyAfterCloseNeitherRacesNorPanics(t *testing.T) {
	a, b := net.Pipe()
	defer b.Close()
	now := time.Now()
	l := &Link{nc: a, rd: now.Add(time.Millisecond), want: now.Add(time.Hour)}
	l.close()
	if l.early(os.ErrDeadlineExceeded) {
		t.Error("a closed link resumed its read")
	}
	c, d := net.Pipe()
	defer d.Close()
	l = &Link{nc: c, rd: now.Add(time.Millisecond), want: now.Add(time.Hour)}
	var wg sync.WaitGroup
	wg.Add(1)
	go func() { defer wg.Done(); l.close() }()
	for range 100 {
		l.early(os.ErrDeadlineExceeded)
	}
	wg.Wait()
}
