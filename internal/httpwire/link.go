package httpwire

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/internal/wire"
)

// DialFunc opens a connection, like net.Dialer.DialContext.
type DialFunc func(ctx context.Context, network, addr string) (net.Conn, error)

// endpoint is what every link of a swarm shares: where the target is, how
// to reach it, and the bytes of its requests, written once.
type Endpoint struct {
	err  error       // the URL could not be used: every attempt fails with it
	addr string      // host:port to dial
	tls  *tls.Config // nil for http
	dial DialFunc

	url *url.URL

	// HTTP/2 (h2.go): the protocol, the probe's request and the mix's
	// fixed ones.
	proto   wire.Protocol
	h2req   h2message
	h2fixed []h2message

	plain   []byte // a plain attempt's whole request
	occRead []byte // an OCC attempt's read
	// An OCC write is occWrite[0] + version + occWrite[1].
	occWrite [2][]byte
	// reqs are a request mix's requests, written from templates; nil
	// for the probe (plain).
	reqs []wireRequest
	mix  *clients.Mix
}

// wireRequest is one request of a mix on the wire: its whole bytes when
// it holds no placeholder (the hot path: written as prepared), else its
// head up to the Content-Length and its body, to fill per logical request.
// A body without placeholders has a known length: its Content-Length and
// the body are then rendered once into the head's last literal (sized),
// and a fill only writes the literal runs and the placeholders between
// them, in one pass.
type wireRequest struct {
	fixed []byte
	head  clients.Template
	body  clients.Template
	sized bool // head holds the whole request, Content-Length and body included
}

// MaxResponseBody is how much of a response body is read (and discarded);
// a longer one closes the connection after it.
const MaxResponseBody = 16 << 20

// wire prepares r's bytes, its path joined to the target's base path.
func (e *Endpoint) wire(host, auth, base, uri string, r *clients.Request) (wireRequest, error) {
	var hdr strings.Builder
	path := base + r.Path
	if r.Path == "" {
		path = uri // the probe's: the target URL itself
	}
	ua := "User-Agent: herdbench\r\n"
	for _, h := range r.Header {
		if strings.EqualFold(h.Name, "User-Agent") {
			ua = "" // the request's own
		}
	}
	hdr.WriteString(r.Method + " " + path + " HTTP/1.1\r\nHost: " + host + "\r\n" + ua + auth)
	for _, h := range r.Header {
		hdr.WriteString(h.Name + ": " + h.Value + "\r\n")
	}
	head, err := clients.ParseTemplate(hdr.String())
	if err != nil {
		return wireRequest{}, err
	}
	body := clients.Literal(r.Body)
	if r.FillBody {
		if body, err = clients.ParseTemplate(string(r.Body)); err != nil {
			return wireRequest{}, err
		}
	}
	w := wireRequest{head: head, body: body}
	if lit, ok := body.Fixed(); ok {
		// The body's length is known: render the rest once.
		rest := append([]byte("Content-Length: "+strconv.Itoa(len(lit))+"\r\n\r\n"), lit...)
		w = wireRequest{head: head.Append(rest), sized: true}
		w.fixed, _ = w.head.Fixed()
	}
	return w, nil
}

// fill appends the request's bytes, its placeholders filled by f.
func (w *wireRequest) fill(b []byte, f *clients.Filler) []byte {
	b = f.Fill(b, w.head)
	if w.sized {
		return b
	}
	mark := len(b)
	b = f.Fill(b, w.body) // after the head: its draws come after the head's
	n := len(b) - mark
	if n == 0 && w.body.Empty() {
		return append(b, "Content-Length: 0\r\n\r\n"...)
	}
	cl := "Content-Length: " + strconv.Itoa(n) + "\r\n\r\n"
	b = append(b, cl...)
	copy(b[mark+len(cl):], b[mark:mark+n])
	copy(b[mark:], cl)
	return b
}

// NewEndpoint prepares the requests for target URL raw. Every request is a
// POST with an empty body (see Swarm.attempt for why POST).
func NewEndpoint(raw string, dial DialFunc, mix *clients.Mix) (*Endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, secret.Error(err)
	}
	e := &Endpoint{dial: dial, url: u, mix: mix}
	port := u.Port()
	switch u.Scheme {
	case "http":
		if port == "" {
			port = "80"
		}
	case "https":
		if port == "" {
			port = "443"
		}
		// HTTP/1.1 only, as the target speaks it: one request at a time on
		// each client's own connection.
		e.tls = &tls.Config{ServerName: u.Hostname(), NextProtos: []string{"http/1.1"}}
	default:
		return nil, fmt.Errorf("target %q: the swarm speaks http and https", secret.URL(raw))
	}
	if u.Hostname() == "" {
		return nil, fmt.Errorf("target %q has no host", secret.URL(raw))
	}
	e.addr = net.JoinHostPort(u.Hostname(), port)
	if e.dial == nil {
		e.dial = (&net.Dialer{Timeout: 5 * time.Second}).DialContext
	}
	auth := ""
	if u.User != nil {
		// Credentials in the URL are sent as net/http sends them (over
		// HTTP/2 too: h2Message reads the header back from these bytes).
		pw, _ := u.User.Password()
		auth = "Authorization: Basic " + base64.StdEncoding.EncodeToString([]byte(u.User.Username()+":"+pw)) + "\r\n"
	}
	head := func(uri string) string {
		return "POST " + uri + " HTTP/1.1\r\nHost: " + u.Host + "\r\nUser-Agent: herdbench\r\n" + auth + "Content-Length: 0\r\n\r\n"
	}
	e.plain = []byte(head(u.RequestURI()))
	base := strings.TrimSuffix(u.EscapedPath(), "/")
	e.occRead = []byte(head(base + "/occ/read"))
	w := head(base + "/occ/write?version=#")
	i := strings.IndexByte(w, '#')
	e.occWrite = [2][]byte{[]byte(w[:i]), []byte(w[i+1:])}
	if mix != nil {
		for k := range mix.Requests {
			wr, err := e.wire(u.Host, auth, base, u.RequestURI(), &mix.Requests[k])
			if err != nil {
				return nil, err
			}
			e.reqs = append(e.reqs, wr)
		}
	}
	return e, nil
}

// link is one client's HTTP/1.1 connection to the target, used by one
// goroutine at a time: it writes each request from that goroutine, in one
// write of bytes prepared once, and reads the answer there, so an attempt
// costs no goroutine hand-offs and its send time is taken right before its
// bytes go to the kernel. There is no background reader and no hidden
// retry: a request is sent once, except that a request whose write fails
// at once on a connection reused from an earlier attempt is written again
// on a new connection (nothing of it reached the target: the connection
// had died while idle, e.g. reset by a crash), as net/http does.
type Link struct {
	ep   *Endpoint
	nc   net.Conn
	raw  syscall.RawConn // nc's socket, for the idle check; nil if not a socket
	br   *bufio.Reader
	idle time.Time // when the last exchange ended; zero for a new connection
	// answered: the connection has carried an answered exchange, what
	// net/http calls reused (its persistConn.markReused).
	answered bool

	mu sync.Mutex // guards nc's deadline against abort
	// aborted is set (under mu) when the run has ended; read without mu
	// where no deadline is set.
	aborted atomic.Bool
	// rd is the read deadline set on nc (zero: none), want the current
	// exchange's own: rd may come earlier (setDeadline keeps it), and a
	// read that times out on it before want is resumed (linkReader).
	rd, want time.Time
	// calm says the attempt follows its client's previous success at
	// once, without a wait: nothing lines it up with other clients, so
	// exchange does not yield between its write and its read.
	calm bool

	buf  []byte // an OCC write's request
	body [64]byte
	peek func(fd uintptr) bool
	live bool // set by peek

	h2 *H2Conn // the HTTP/2 connection the link's attempts use, nil for HTTP/1.1 (h2.go)
}

// answer is the part of a response a client uses.
type answer struct {
	status     int
	retryAfter string // the Retry-After header, "" if none
	body       []byte // the first bytes of the body (up to 64), when asked for
	// read is when the answer was read whole, on a connection kept open
	// (zero otherwise): the attempt's end, one clock reading shared with
	// the link's idle time.
	read time.Time
}

// errAborted is returned for a connection the run's end cut.
var errAborted = errors.New("clients: the run ended")

// staleAfter is how long a connection may sit idle before it is checked for
// a close the server sent meanwhile (an idle timeout's FIN), which a write
// would not notice. Closed-loop clients under load never wait that long, so
// they never pay the check.
const staleAfter = time.Second

func NewLink(ep *Endpoint) *Link {
	l := &Link{ep: ep}
	l.peek = l.peekFD
	return l
}

// abort makes every blocked or later read and write on the link fail at
// once: the run has ended.
func (l *Link) Abort() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.aborted.Store(true)
	if l.nc != nil {
		_ = l.nc.SetDeadline(aLongTimeAgo)
	}
	if l.h2 != nil {
		l.h2.Abort()
	}
}

var aLongTimeAgo = time.Unix(1, 0)

// close closes the connection, if any.
func (l *Link) close() {
	if l.h2 != nil {
		l.h2.Abort()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nc != nil {
		_ = l.nc.Close()
		l.nc, l.raw, l.rd = nil, nil, time.Time{}
	}
}

// connect dials a new connection, giving up at deadline (if not zero).
func (l *Link) connect(ctx context.Context, deadline time.Time) error {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	nc, err := l.ep.dial(ctx, "tcp", l.ep.addr)
	if err != nil {
		return err
	}
	var raw syscall.RawConn
	if sc, ok := nc.(syscall.Conn); ok {
		raw, _ = sc.SyscallConn()
	}
	if l.ep.tls != nil {
		tc := tls.Client(nc, l.ep.tls)
		if err := tc.HandshakeContext(ctx); err != nil {
			_ = nc.Close()
			return err
		}
		nc = tc
	}
	l.mu.Lock()
	if l.aborted.Load() {
		l.mu.Unlock()
		_ = nc.Close()
		return errAborted
	}
	l.nc, l.raw, l.rd, l.idle, l.answered = nc, raw, time.Time{}, time.Time{}, false
	l.mu.Unlock()
	if l.br == nil {
		l.br = bufio.NewReaderSize(linkReader{l}, 4096)
	} else {
		l.br.Reset(linkReader{l})
	}
	return nil
}

// linkReader reads a link's connection for its buffer. A read that times
// out on a deadline set before the exchange's own (setDeadline keeps one)
// is resumed with the exchange's: every read still ends at its exchange's
// deadline, exactly, and no earlier.
type linkReader struct{ l *Link }

func (r linkReader) Read(p []byte) (int, error) {
	l := r.l
	for {
		n, err := l.nc.Read(p)
		if n > 0 || err == nil || !l.early(err) {
			return n, err
		}
	}
}

// early reports whether err is a read's timeout on a deadline before the
// exchange's own, and if so sets the exchange's: the read is to go on.
func (l *Link) early(err error) bool {
	if l.want.IsZero() || !errors.Is(err, os.ErrDeadlineExceeded) {
		return false
	}
	// Under mu: close, from another goroutine (a relayed call whose
	// caller went away), clears rd and nc.
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.nc == nil || !l.rd.Before(l.want) || !time.Now().Before(l.want) {
		return false
	}
	if l.aborted.Load() {
		return false // the run's end: its deadline, not a kept one
	}
	l.rd = l.want
	return l.nc.SetReadDeadline(l.want) == nil
}

// warm opens the connection ahead of the first attempt, giving up at
// deadline. A failure is not an attempt: the first attempt dials again.
func (l *Link) Warm(ctx context.Context, deadline time.Time) {
	if l.h2 != nil {
		l.h2.Warm(ctx, deadline)
		return
	}
	if l.nc == nil && l.connect(ctx, deadline) == nil {
		l.idle = time.Now() // idle from now on, like a connection reused
	}
}

// setDeadline sets the deadline of the exchange's reads, at now; the zero
// time means none. Writes need none: a request is a few dozen bytes,
// written into an empty socket buffer (one request at a time), so a write
// never waits for the server; the run's end (abort) cuts writes too.
//
// A deadline already set that has not passed and comes no later than t is
// kept: a read that times out on it is resumed with t (linkReader). So a
// closed loop sets one deadline per timeout's length on each connection,
// not one per attempt: setting a deadline costs a lock and a runtime timer
// change, often a wake-up of the network poller too.
func (l *Link) setDeadline(t, now time.Time) error {
	l.want = t
	switch {
	case t.IsZero():
		if l.rd.IsZero() {
			return l.abortedErr()
		}
	case !l.rd.IsZero() && !l.rd.After(t) && l.rd.After(now):
		return l.abortedErr()
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.aborted.Load() {
		return errAborted
	}
	l.rd = t
	return l.nc.SetReadDeadline(t)
}

// abortedErr returns errAborted once the run has ended.
func (l *Link) abortedErr() error {
	if l.aborted.Load() {
		return errAborted
	}
	return nil
}

// peekFD looks at the idle socket without blocking: live is false if the
// server closed it or it failed.
func (l *Link) peekFD(fd uintptr) bool {
	var b [1]byte
	n, _, err := syscall.Recvfrom(int(fd), b[:], syscall.MSG_PEEK|syscall.MSG_DONTWAIT)
	switch {
	case err == syscall.EAGAIN:
		l.live = true
	case err != nil, n == 0:
		l.live = false // closed or failed
	default:
		// Bytes nobody asked for: for plain HTTP a broken exchange; over TLS
		// they may be a session ticket, which the TLS layer reads.
		l.live = l.ep.tls != nil
	}
	return true
}

// stale reports whether the idle connection was closed by the server.
func (l *Link) stale(now time.Time) bool {
	if l.raw == nil || l.idle.IsZero() || now.Sub(l.idle) < staleAfter {
		return false
	}
	// The last exchange's deadline has likely passed: lift it, or the peek
	// would fail on it rather than look at the socket.
	if l.setDeadline(time.Time{}, now) != nil {
		return false // the run has ended; begin says so
	}
	if err := l.raw.Read(l.peek); err != nil {
		return true
	}
	return !l.live
}

// begin readies the link for an attempt with timeout (0: none) and
// returns the attempt's send time: now, or for a link without a
// connection the start of its dial (the SYN is its first packet on the
// wire); and its deadline, timeout after the first of these (zero: none).
func (l *Link) begin(ctx context.Context, timeout time.Duration) (now, deadline time.Time, err error) {
	now = time.Now()
	if timeout > 0 {
		deadline = now.Add(timeout)
	}
	if l.ep.err != nil {
		return now, deadline, l.ep.err
	}
	if l.nc != nil {
		if !l.stale(now) {
			err := l.setDeadline(deadline, now)
			if err == nil || err == errAborted {
				return now, deadline, err
			}
			// A connection that takes no deadline has gone (an in-memory
			// pipe whose far end closed).
		}
		l.close()
		now = time.Now()
	}
	if err := l.connect(ctx, deadline); err != nil {
		return now, deadline, err
	}
	return now, deadline, l.setDeadline(deadline, now)
}

// exchange writes req on the link's connection and reads the answer, keeping
// the body's first bytes if keepBody. begin must have succeeded. On any
// failure the connection is closed: its state is unknown.
func (l *Link) exchange(ctx context.Context, req []byte, deadline time.Time, keepBody bool) (answer, error) {
	reused := !l.idle.IsZero()
	n, err := l.nc.Write(req)
	if err != nil && n == 0 && reused && ctx.Err() == nil {
		// The connection died while idle: nothing reached the target.
		l.close()
		if err = l.connect(ctx, deadline); err == nil {
			if err = l.setDeadline(deadline, time.Now()); err == nil {
				_, err = l.nc.Write(req)
			}
		}
	}
	if err != nil {
		l.close()
		return answer{}, err
	}
	// Let the other runnable clients send before this one reads: in a
	// wave, clients woken for the same instant then all write before any
	// of them handles an answer (which would delay the later writes), and
	// the answer is often there by the time this one reads. A calm attempt
	// (a closed loop's next request right after a success) is in no wave:
	// it goes on to its read, which parks it if the answer is not there.
	if !l.calm {
		runtime.Gosched()
	}
	if _, err := l.br.Peek(1); err != nil {
		failed := time.Now()
		// A crash wakes every client at once: let the others note when
		// they learned of it before this one closes and records (a
		// client's retry is scheduled from when it learned).
		runtime.Gosched()
		answered := l.answered
		l.close()
		return answer{}, &noAnswerError{err: err, reused: answered, at: failed}
	}
	a, closing, err := l.read(keepBody, string(req[:min(5, len(req))]) == "HEAD ")
	if err != nil || closing {
		l.close()
		return a, err
	}
	a.read = time.Now()
	l.idle, l.answered = a.read, true
	return a, nil
}

// noAnswerError is an exchange that failed before the first byte of its
// answer (the connection reset or closed), and whether its connection had
// carried an answered exchange before: what net/http re-sends a
// replayable request after (Transport).
type noAnswerError struct {
	err    error
	reused bool
	at     time.Time // when the failure was read
}

func (e *noAnswerError) Error() string { return e.err.Error() }
func (e *noAnswerError) Unwrap() error { return e.err }

// read reads one answer. closing is set when the server will close the
// connection after it.
func (l *Link) read(keepBody, head bool) (a answer, closing bool, err error) {
	if !head {
		if a, closing, ok, err := readFast(l.br, l.body[:], keepBody); ok {
			return a, closing, err
		}
	}
	var resp *http.Response
	var req *http.Request
	if head {
		req = headRequest // the answer to a HEAD has no body, whatever its Content-Length says
	}
	for {
		resp, err = http.ReadResponse(l.br, req)
		if err != nil {
			return a, true, err
		}
		// 1xx answers (e.g. 103 Early Hints) come before the real one.
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	a.status = resp.StatusCode
	if resp.StatusCode >= 400 {
		a.retryAfter = resp.Header.Get("Retry-After")
	}
	done := false
	if keepBody {
		n := 0
		for n < len(l.body) && err == nil {
			var m int
			m, err = resp.Body.Read(l.body[n:])
			n += m
		}
		a.body = l.body[:n]
		if err == io.EOF {
			err, done = nil, true
		}
	}
	long := false
	if err == nil && !done {
		var n int64
		n, err = io.CopyN(io.Discard, resp.Body, MaxResponseBody+1)
		if err == io.EOF {
			err = nil
		} else if err == nil && n > MaxResponseBody {
			long = true // the rest is not read: the connection closes
		}
	}
	_ = resp.Body.Close()
	return a, resp.Close || long || err != nil, err
}

var headRequest = &http.Request{Method: http.MethodHead}

// Source hands out a link for each attempt.
type Source interface {
	Get() *Link
	Put(*Link)
}

// A closed-loop client's own link serves every attempt it makes.
func (l *Link) Get() *Link { return l }
func (l *Link) Put(*Link)  {}

// Pool is the open workload's shared links: an arrival takes an idle
// one for each attempt, or a new one if none is idle.
type Pool struct {
	ep   *Endpoint
	set  *LinkSet
	mu   sync.Mutex
	idle []*Link
}

// maxIdle is how many idle connections an open workload keeps open.
const maxIdle = 4096

func (p *Pool) Get() *Link {
	p.mu.Lock()
	if n := len(p.idle); n > 0 {
		l := p.idle[n-1]
		p.idle = p.idle[:n-1]
		p.mu.Unlock()
		return l
	}
	p.mu.Unlock()
	l := NewLink(p.ep)
	if p.ep.proto.HTTP2() {
		l.h2 = &H2Conn{ep: p.ep}
	}
	return p.set.Add(l)
}

// put gives l back to the pool, or closes it when maxIdle links are idle
// already: a closed link in the idle list would be handed out again and
// cost its next attempt a connection.
func (p *Pool) Put(l *Link) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.idle) >= maxIdle {
		l.close()
		return
	}
	p.idle = append(p.idle, l)
}

// LinkSet is every link of a swarm, for ending them all at once.
type LinkSet struct {
	mu      sync.Mutex
	links   []*Link
	aborted bool
}

func (s *LinkSet) Add(l *Link) *Link {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.aborted {
		l.Abort()
	}
	s.links = append(s.links, l)
	return l
}

// abort unblocks every link's exchange: the run has ended.
func (s *LinkSet) Abort() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.aborted = true
	for _, l := range s.links {
		l.Abort()
	}
}

// closeAll closes every link's connection.
func (s *LinkSet) CloseAll() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, l := range s.links {
		l.close()
	}
}
