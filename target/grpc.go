package target

import (
	"context"
	"net"
	"net/http"
	"net/textproto"
	"net/url"
	"sync"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/grpcwire"
	"github.com/herdbench/herdbench/internal/grpcraw"
	"github.com/herdbench/herdbench/target/model"
)

// GRPCHandler takes a call the chaos plan let through, instead of the
// capacity model: the chaos proxy forwards it upstream. It returns the
// call's status as an error (nil for OK), and must give up when the
// stream's context ends.
type GRPCHandler func(method string, stream grpc.ServerStream) error

// newGRPC makes s serve gRPC: every method, any message (the raw codec),
// each call through the same steps as an HTTP request (serveGRPC). The
// connections are tracked by their handshake (connCreds), so a crash
// resets them all, every stream on them failing at once.
func (s *Server) newGRPC() {
	s.grpc = grpc.NewServer(
		grpc.Creds(connCreds{s: s}),
		grpc.ForceServerCodec(grpcraw.Codec{}),
		grpc.UnknownServiceHandler(s.serveGRPC),
	)
}

// goAwayGRPC tells every connection of a gRPC server to go away, as a
// gracefully stopping grpc-go server does: each gets a GOAWAY, the calls in
// flight on it finish and are answered, and its clients open new
// connections for their next calls. The server that serves from then on
// (on the listener opened again when the outage ends, reopen) is a new
// one: a grpc-go server stopped gracefully serves no more. It is the gRPC
// side of a goaway outage.
func (s *Server) goAwayGRPC() {
	s.mu.Lock()
	old := s.grpc
	s.newGRPC()
	s.mu.Unlock()
	s.wg.Add(1)
	go func() {
		defer s.wg.Done()
		old.GracefulStop() // closes its listener too; returns when its calls have ended
	}()
}

// grpcCall is one call's side of an exchange: how it was answered, for the
// counters and the recording, and the status it returns.
type grpcCall struct {
	stream   grpc.ServerStream
	answered bool
	answer   chaos.Answer
	err      error         // the call's status; nil for OK
	upstream time.Duration // the proxy's next took this long
}

// serveGRPC is the gRPC counterpart of ServeHTTP and the counters' wrap:
// a call is counted in flight, goes through the network hop, the chaos
// plan's decision and the capacity model (or the proxy's next), and is
// counted and observed by its answer. A step that aborts (a crash, a
// client gone) panics with http.ErrAbortHandler, as for HTTP; here the
// panic ends the call, whose connection is already reset or whose client
// has gone.
func (s *Server) serveGRPC(_ any, stream grpc.ServerStream) (err error) {
	ctx := stream.Context()
	method, _ := grpc.MethodFromServerStream(stream)
	g := &grpcCall{stream: stream}
	arrived := time.Now()
	s.counters.inFlight.Add(1)
	defer func() {
		s.counters.inFlight.Add(-1)
		p := recover()
		if p != nil && p != http.ErrAbortHandler {
			panic(p)
		}
		if p != nil {
			err = status.Error(codes.Unavailable, "herdbench target: the call was dropped")
		}
		var a Answer
		st := 0
		switch {
		case g.answered:
			a, st = answerOf(g.answer), g.answer.Status
		case p != nil, ctx.Err() != nil && err != nil:
			a = AnswerAborted
		default:
			a, st = answerOfCode(status.Code(err))
		}
		s.counters.answers[a].Add(1)
		crashed := a == AnswerAborted && s.crashedSince(arrived)
		s.counters.codes[clientCode(a, crashed, err, ctx.Err())].Add(1)
		if s.observer != nil {
			o := Observation{Request: grpcRequest(ctx, method), Arrived: arrived, Ended: time.Now(), Answer: a, Status: st, Upstream: g.upstream, Crashed: crashed}
			s.observer.Observe(o)
		}
	}()
	s.mu.Lock()
	x := exchange{s: s, g: g, ctx: ctx, crashed: s.crashed}
	s.mu.Unlock()
	x.hop()
	if !x.applyFaults() {
		return g.err
	}
	if s.nextGRPC != nil {
		return s.forwardGRPC(method, g, x.crashed)
	}
	var in []byte
	if err := stream.RecvMsg(&in); err != nil {
		return err
	}
	route := 0
	if len(s.routes.Routes) > 0 {
		route = s.routes.Route("POST", method) // a gRPC call is a POST to /package.Service/Method
	}
	x.serve(model.OpPlain, 0, route)
	return g.err
}

// answerGRPC is exchange.answer for a gRPC call: the one place the target
// turns an Answer into gRPC. Admit waits its delay and goes on; a reset or
// refuse resets the call's connection (every stream on it fails at once);
// a hang holds the call until its deadline or its client's cancel; a 2xx
// answer sends an empty message and OK; any other status is the gRPC
// status a server shows for it (grpcwire.Code: 503 UNAVAILABLE, 429
// RESOURCE_EXHAUSTED, ...), with the pushback, when the answer has one, in
// the grpc-retry-pushback-ms trailer (pushbackOf). A truncated answer resets the
// connection mid-message.
func (x *exchange) answerGRPC(a chaos.Answer) bool {
	s, g := x.s, x.g
	switch a.Verdict {
	case chaos.Admit:
		if a.Delay > 0 && !s.wait(x.ctx, x.crashed, a.Delay) {
			panic(http.ErrAbortHandler)
		}
		return true
	case chaos.ResetConn, chaos.RefuseConn:
		g.answered, g.answer = true, a
		resetStreamConn(x.ctx)
		g.err = status.Error(codes.Unavailable, "herdbench target: connection reset")
		return false
	case chaos.Hang:
		select {
		case <-x.ctx.Done():
			g.err = status.FromContextError(x.ctx.Err()).Err()
			return false
		case <-x.crashed:
			panic(http.ErrAbortHandler)
		}
	}
	x.hop()
	g.answered, g.answer = true, a
	if a.Truncate {
		resetStreamConn(x.ctx)
		g.err = status.Error(codes.Unavailable, "herdbench target: connection reset mid-answer")
		return false
	}
	if grpcwire.Code(a.Status) == codes.OK {
		g.err = g.stream.SendMsg([]byte{})
		return false
	}
	if v, ok := pushbackOf(a); ok {
		g.stream.SetTrailer(metadata.Pairs(grpcwire.Pushback, v))
	}
	g.err = status.Error(grpcwire.Code(a.Status), http.StatusText(a.Status))
	return false
}

// pushbackOf is the grpc-retry-pushback-ms trailer's value for answer a,
// and whether it has one: the fault's pushback_ms (chaos.Answer.Pushback,
// "-1" for its "do not retry" form), else its Retry-After, as the
// simulator reads the same answer (sim's Sim.answer).
func pushbackOf(a chaos.Answer) (string, bool) {
	switch {
	case a.Pushback == chaos.PushbackStop:
		return grpcwire.PushbackValue(-1), true
	case a.Pushback > 0:
		return grpcwire.PushbackValue(a.Pushback), true
	case a.RetryAfter > 0:
		return grpcwire.PushbackValue(a.RetryAfter), true
	}
	return "", false
}

// clientCode is the status code the client of a call saw: the one the
// server ended it with, but for a call it never answered: a crash reset
// its connection (UNAVAILABLE), or its client gave up (CANCELLED, or
// DEADLINE_EXCEEDED when its deadline passed).
func clientCode(a Answer, crashed bool, err, ctxErr error) codes.Code {
	c := status.Code(err)
	switch {
	case a != AnswerAborted:
	case crashed:
		c = codes.Unavailable
	case ctxErr != nil:
		c = status.FromContextError(ctxErr).Code()
	}
	if c >= NumCodes {
		return codes.Unknown
	}
	return c
}

// answerOfCode classifies a call's status as its client sees it, and the
// HTTP status that stands for it in a recording (grpcwire.Status):
// RESOURCE_EXHAUSTED is a 429, the server's failures (UNAVAILABLE,
// INTERNAL, DEADLINE_EXCEEDED and the like) 5xx, the caller's mistakes
// 4xx, CANCELLED a call that ended unanswered.
func answerOfCode(c codes.Code) (Answer, int) {
	if c == codes.Canceled {
		return AnswerAborted, 0
	}
	st := grpcwire.Status(c)
	return AnswerOf(st), st
}

// grpcRequest is a call as a recording reads a request: its method as the
// path, its metadata as headers (user-agent, grpc-previous-rpc-attempts,
// any key a cohort is told by), its peer as the remote address.
func grpcRequest(ctx context.Context, method string) *http.Request {
	h := http.Header{}
	md, _ := metadata.FromIncomingContext(ctx)
	for k, v := range md {
		if len(k) > 0 && k[0] == ':' {
			continue
		}
		h[textproto.CanonicalMIMEHeaderKey(k)] = v
	}
	r := &http.Request{Method: http.MethodPost, URL: &url.URL{Path: method}, Proto: "HTTP/2.0", ProtoMajor: 2, Header: h, Host: ""}
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		r.RemoteAddr = p.Addr.String()
	}
	return r.WithContext(ctx)
}

// forwardGRPC hands an admitted call to the proxy's next, cancelling it if
// a crash begins meanwhile, and notes how long next took (the upstream's
// time, for the recording).
func (s *Server) forwardGRPC(method string, g *grpcCall, crashed <-chan struct{}) error {
	stream := g.stream
	ctx, cancel := untilCrash(stream.Context(), crashed)
	defer cancel()
	start := time.Now()
	err := s.nextGRPC(method, &ctxStream{ServerStream: stream, ctx: ctx})
	g.upstream = time.Since(start)
	abortIfCrashed(crashed)
	return err
}

// ctxStream is a server stream with another context.
type ctxStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (c *ctxStream) Context() context.Context { return c.ctx }

// resetStreamConn resets the connection of the call whose context is ctx:
// its peer's AuthInfo holds it (connCreds).
func resetStreamConn(ctx context.Context) {
	if p, ok := peer.FromContext(ctx); ok {
		if ci, ok := p.AuthInfo.(grpcAuthInfo); ok {
			resetConn(ci.conn)
		}
	}
}

// connCreds are transport credentials with no security, as
// insecure.NewCredentials(), whose server handshake registers each
// connection with the server, so that a crash and a reset answer can
// reach it, and hands it to the calls on it in their peer's AuthInfo.
type connCreds struct{ s *Server }

// grpcAuthInfo is a gRPC connection's AuthInfo: the tracked connection.
type grpcAuthInfo struct {
	credentials.CommonAuthInfo
	conn net.Conn
}

func (grpcAuthInfo) AuthType() string { return "insecure" }

func (c connCreds) ClientHandshake(_ context.Context, _ string, conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	return conn, grpcAuthInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}}, nil
}

func (c connCreds) ServerHandshake(conn net.Conn) (net.Conn, credentials.AuthInfo, error) {
	t := &trackedConn{Conn: conn, set: &c.s.grpcConns}
	t.set.add(t)
	return t, grpcAuthInfo{CommonAuthInfo: credentials.CommonAuthInfo{SecurityLevel: credentials.NoSecurity}, conn: t}, nil
}

func (c connCreds) Info() credentials.ProtocolInfo {
	return credentials.ProtocolInfo{SecurityProtocol: "insecure"}
}

func (c connCreds) Clone() credentials.TransportCredentials { return c }

// OverrideServerName is deprecated in grpc-go but still in the interface.
func (c connCreds) OverrideServerName(string) error { return nil }

// connSet is a gRPC server's open connections.
type connSet struct {
	mu sync.Mutex
	m  map[*trackedConn]struct{}
}

func (c *connSet) add(t *trackedConn) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[*trackedConn]struct{}{}
	}
	c.m[t] = struct{}{}
}

// resetAll resets every connection; they leave the set as they close.
func (c *connSet) resetAll() {
	c.mu.Lock()
	all := make([]net.Conn, 0, len(c.m))
	for t := range c.m {
		all = append(all, t)
	}
	c.mu.Unlock()
	resetAll(all)
}

// trackedConn leaves its set of connections when closed.
type trackedConn struct {
	net.Conn
	set  *connSet
	once sync.Once
}

func (t *trackedConn) Close() error {
	t.once.Do(func() {
		t.set.mu.Lock()
		delete(t.set.m, t)
		t.set.mu.Unlock()
	})
	return t.Conn.Close()
}

// NetConn lets netguard.Socket reach the socket, so a reset is an RST.
func (t *trackedConn) NetConn() net.Conn { return t.Conn }
