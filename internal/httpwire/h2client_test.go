package httpwire

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
)

// h2peer is the server end of an in-memory connection to an h2client,
// scripted by a test with x/net's Framer.
type h2peer struct {
	t   *testing.T
	nc  net.Conn
	fr  *http2.Framer
	enc *hpack.Encoder
	buf bytes.Buffer
}

// countConn counts the writes made on a connection.
type countConn struct {
	net.Conn
	writes atomic.Int64
}

func (c *countConn) Write(p []byte) (int, error) {
	c.writes.Add(1)
	return c.Conn.Write(p)
}

// newH2Pair connects an h2client to a scripted server that sends
// settings as its own; the handshake is done when it returns. It runs in
// a synctest bubble.
func newH2Pair(t *testing.T, settings ...http2.Setting) (*h2client, *h2peer, *countConn) {
	t.Helper()
	cn, sn := net.Pipe()
	cc := &countConn{Conn: cn}
	p := &h2peer{t: t, nc: sn, fr: http2.NewFramer(sn, sn)}
	p.fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	p.enc = hpack.NewEncoder(&p.buf)
	done := make(chan struct{})
	var c *h2client
	var err error
	go func() {
		defer close(done)
		c, err = newH2Client(context.Background(), cc)
	}()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(sn, preface); err != nil || string(preface) != http2.ClientPreface {
		t.Fatalf("preface %q, %v", preface, err)
	}
	if f := p.read(); f.Header().Type != http2.FrameSettings {
		t.Fatalf("first frame %v; want the client's SETTINGS", f.Header())
	}
	if f, ok := p.read().(*http2.WindowUpdateFrame); !ok || f.StreamID != 0 || f.Increment != h2ConnWindow-65535 {
		t.Fatalf("second frame %v; want the connection's WINDOW_UPDATE", f)
	}
	if err := p.fr.WriteSettings(settings...); err != nil {
		t.Fatal(err)
	}
	<-done
	if err != nil {
		t.Fatal(err)
	}
	if f, ok := p.read().(*http2.SettingsFrame); !ok || !f.IsAck() {
		t.Fatalf("frame %v; want the SETTINGS ack", f)
	}
	t.Cleanup(func() { c.close(); _ = sn.Close() })
	return c, p, cc
}

// read returns the client's next frame.
func (p *h2peer) read() http2.Frame {
	p.t.Helper()
	f, err := p.fr.ReadFrame()
	if err != nil {
		p.t.Fatalf("reading the client's frames: %v", err)
	}
	return f
}

// headers reads the client's next frame, which must be a stream's HEADERS.
func (p *h2peer) headers() *http2.MetaHeadersFrame {
	p.t.Helper()
	f, ok := p.read().(*http2.MetaHeadersFrame)
	if !ok {
		p.t.Fatalf("frame %v; want HEADERS", f.Header())
	}
	return f
}

// answer sends a whole answer with status on stream id.
func (p *h2peer) answer(id uint32, status int, body string) {
	p.t.Helper()
	p.buf.Reset()
	_ = p.enc.WriteField(hpack.HeaderField{Name: ":status", Value: strconv.Itoa(status)})
	if err := p.fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: p.buf.Bytes(), EndHeaders: true, EndStream: body == ""}); err != nil {
		p.t.Fatal(err)
	}
	if body != "" {
		if err := p.fr.WriteData(id, true, []byte(body)); err != nil {
			p.t.Fatal(err)
		}
	}
}

// result is what one roundTrip returned.
type result struct {
	status int
	err    error
}

// send starts n round trips of the probe at once and returns where their
// results arrive.
func send(c *h2client, n int, deadline time.Time) <-chan result {
	m := &h2message{fields: []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "http"}, {Name: ":authority", Value: "t"}, {Name: ":path", Value: "/"}, {Name: "user-agent", Value: "herdbench"}}, stable: true}
	out := make(chan result, n)
	for range n {
		go func() {
			status, _, err := c.roundTrip(context.Background(), m, deadline)
			out <- result{status, err}
		}()
	}
	return out
}

// indexesOnly tells a block of indexed fields alone from one that adds to
// the dynamic table.
func TestIndexesOnly(t *testing.T) {
	var buf bytes.Buffer
	enc := hpack.NewEncoder(&buf)
	fields := []hpack.HeaderField{{Name: ":method", Value: "POST"}, {Name: "user-agent", Value: "herdbench"}}
	for i, want := range []bool{false, true, true} {
		buf.Reset()
		for _, f := range fields {
			_ = enc.WriteField(f)
		}
		if got := indexesOnly(buf.Bytes(), len(fields)); got != want {
			t.Errorf("encoding %d (% x): indexes only %v, want %v", i, buf.Bytes(), got, want)
		}
	}
	enc.SetMaxDynamicTableSizeLimit(0) // the next block begins with the size update
	buf.Reset()
	for _, f := range fields {
		_ = enc.WriteField(f)
	}
	if indexesOnly(buf.Bytes(), len(fields)) {
		t.Errorf("% x: a table size update taken for indexes", buf.Bytes())
	}
}

// The streams ready at once go out in one write: eight clients starting
// a stream while the connection's write is blocked send their eight
// HEADERS in at most two writes (x/net's ClientConn writes each stream's
// by itself: eight).
func TestH2ClientBatchesTheStreamsReady(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, p, cc := newH2Pair(t)
		before := cc.writes.Load()
		res := send(c, 8, time.Time{})
		synctest.Wait() // all eight written into the batch; the pipe holds the write
		ids := map[uint32]bool{}
		for range 8 {
			f := p.headers()
			ids[f.StreamID] = true
			// The first is encoded with new table entries, the second as
			// indexes only, kept and sent again from then on.
			if f.PseudoValue("method") != "POST" || f.PseudoValue("path") != "/" || f.PseudoValue("authority") != "t" || len(f.RegularFields()) != 1 || f.RegularFields()[0].Value != "herdbench" {
				t.Errorf("stream %d's headers %v", f.StreamID, f.Fields)
			}
		}
		if n := cc.writes.Load() - before; n > 2 {
			t.Errorf("eight streams' HEADERS took %d writes; want them batched (at most 2)", n)
		}
		if len(ids) != 8 {
			t.Fatalf("stream IDs %v; want 8 distinct", ids)
		}
		for id := range ids {
			p.answer(id, 200, "ok")
		}
		for range 8 {
			if r := <-res; r.status != 200 || r.err != nil {
				t.Errorf("round trip: %d, %v; want 200", r.status, r.err)
			}
		}
	})
}

// A GOAWAY lets the streams the server took finish; the others fail as
// refused, no new stream is started on the connection, and it closes
// once its last stream has ended.
func TestH2ClientGoAwayFinishesTheStreamsTaken(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, p, _ := newH2Pair(t)
		res := send(c, 3, time.Time{})
		var ids []uint32
		for range 3 {
			ids = append(ids, p.headers().StreamID)
		}
		if ids[0] != 1 || ids[1] != 3 || ids[2] != 5 {
			t.Fatalf("stream IDs %v; want 1, 3, 5", ids)
		}
		if err := p.fr.WriteGoAway(3, http2.ErrCodeNo, nil); err != nil {
			t.Fatal(err)
		}
		r := <-res
		var ga *h2GoAwayError
		if !errors.As(r.err, &ga) || Classify(r.err) != results.Refused {
			t.Fatalf("stream 5: %d, %v; want refused by the GOAWAY", r.status, r.err)
		}
		if c.canTake() {
			t.Error("a connection told to go away takes new streams")
		}
		p.answer(1, 200, "")
		p.answer(3, 503, "busy")
		got := map[int]bool{}
		for range 2 {
			r := <-res
			if r.err != nil {
				t.Errorf("a stream the server took: %v", r.err)
			}
			got[r.status] = true
		}
		if !got[200] || !got[503] {
			t.Errorf("statuses %v; want 200 and 503", got)
		}
		synctest.Wait()
		if !c.failed() {
			t.Error("the connection stays open after its last stream ended")
		}
	})
}

// The server's RST_STREAM fails that stream alone (refused for
// REFUSED_STREAM, else reset); the connection's end fails every stream on
// it at once, as a reset.
func TestH2ClientResets(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, p, _ := newH2Pair(t)
		res := send(c, 4, time.Time{})
		for range 4 {
			p.headers()
		}
		_ = p.fr.WriteRSTStream(1, http2.ErrCodeRefusedStream)
		_ = p.fr.WriteRSTStream(3, http2.ErrCodeInternal)
		got := map[results.Outcome]int{}
		for range 2 {
			got[Classify((<-res).err)]++
		}
		if got[results.Refused] != 1 || got[results.Reset] != 1 {
			t.Errorf("outcomes %v; want one refused, one reset", got)
		}
		if !c.canTake() {
			t.Error("a stream's reset ended the connection")
		}
		_ = p.nc.Close() // the server crashed
		for range 2 {
			if r := <-res; Classify(r.err) != results.Reset {
				t.Errorf("a stream of a connection that ended: %v (%v); want reset", r.err, Classify(r.err))
			}
		}
		if c.canTake() {
			t.Error("a connection that ended takes new streams")
		}
	})
}

// An attempt's deadline ends its stream: the server is told (RST_STREAM
// CANCEL) and the attempt times out; the connection goes on.
func TestH2ClientDeadline(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, p, _ := newH2Pair(t)
		start := time.Now()
		res := send(c, 1, start.Add(time.Second))
		id := p.headers().StreamID
		f, ok := p.read().(*http2.RSTStreamFrame)
		if !ok || f.StreamID != id || f.ErrCode != http2.ErrCodeCancel {
			t.Fatalf("frame %v; want RST_STREAM CANCEL for stream %d", f, id)
		}
		r := <-res
		if Classify(r.err) != results.Timeout || time.Since(start) != time.Second {
			t.Errorf("after %v: %v; want a timeout after 1s", time.Since(start), r.err)
		}
		p.answer(id, 200, "") // too late: ignored
		res = send(c, 1, time.Time{})
		p.answer(p.headers().StreamID, 204, "")
		if r := <-res; r.status != 204 || r.err != nil {
			t.Errorf("the next stream: %d, %v", r.status, r.err)
		}
	})
}

// The server's SETTINGS_MAX_CONCURRENT_STREAMS holds: a stream beyond it
// waits for a slot instead of being refused.
func TestH2ClientWaitsForAStreamSlot(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		c, p, _ := newH2Pair(t, http2.Setting{ID: http2.SettingMaxConcurrentStreams, Val: 2})
		res := send(c, 3, time.Time{})
		a, b := p.headers().StreamID, p.headers().StreamID
		synctest.Wait()
		if n := len(res); n != 0 {
			t.Fatalf("%d answers before any was sent", n)
		}
		p.answer(a, 200, "")
		third := p.headers().StreamID // sent once a slot is free
		p.answer(b, 200, "")
		p.answer(third, 200, "")
		for range 3 {
			if r := <-res; r.status != 200 {
				t.Errorf("%d, %v", r.status, r.err)
			}
		}
	})
}

// Bodies larger than the flow-control windows, both ways, over a real
// HTTP/2 server: the request's body is sent within the server's windows
// as they are given back, and the answer's is read past the connection's
// receive window, which is given back as it is read.
func TestH2ClientFlowControl(t *testing.T) {
	defer func(w uint32) { h2ConnWindow = w }(h2ConnWindow)
	h2ConnWindow = 1 << 17
	const up, down = 3 << 20, 2 << 20
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if n, err := io.Copy(io.Discard, r.Body); n != up || err != nil {
			t.Errorf("the server read %d bytes of the body (%v); want %d", n, err, up)
		}
		_, _ = w.Write(make([]byte, down))
	}))
	srv.Config.Protocols = new(http.Protocols)
	srv.Config.Protocols.SetUnencryptedHTTP2(true)
	srv.Start()
	defer srv.Close()
	nc, err := net.Dial("tcp", srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := newH2Client(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	defer c.close()
	req := "PUT /up HTTP/1.1\r\nHost: t\r\nContent-Length: " + strconv.Itoa(up) + "\r\n\r\n" + string(make([]byte, up))
	m, err := h2Message([]byte(req), "http")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	for range 2 { // two streams share the connection's windows
		wg.Go(func() {
			status, _, err := c.roundTrip(ctx, &m, time.Time{})
			if status != 200 || err != nil {
				t.Errorf("%d, %v", status, err)
			}
		})
	}
	wg.Wait()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err != nil {
		t.Errorf("the connection failed: %v", c.err)
	}
}

// serveH2 is a scripted HTTP/2 server on nc answering every stream 200.
func serveH2(nc net.Conn) {
	defer nc.Close()
	preface := make([]byte, len(http2.ClientPreface))
	if _, err := io.ReadFull(nc, preface); err != nil {
		return
	}
	fr := http2.NewFramer(nc, nc)
	fr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	ids := make(chan uint32, 64)
	go func() {
		_ = fr.WriteSettings()
		var buf bytes.Buffer
		enc := hpack.NewEncoder(&buf)
		for id := range ids {
			buf.Reset()
			_ = enc.WriteField(hpack.HeaderField{Name: ":status", Value: "200"})
			if fr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: buf.Bytes(), EndHeaders: true, EndStream: true}) != nil {
				return
			}
		}
	}()
	defer close(ids)
	for {
		f, err := fr.ReadFrame()
		if err != nil {
			return
		}
		if h, ok := f.(*http2.MetaHeadersFrame); ok {
			ids <- h.StreamID
		}
	}
}

// An attempt that finds the connection being dialled by warm, which
// gives up at the first send, does not fail with warm's deadline: it
// dials again itself and is served.
func TestH2AttemptDialsAgainAfterWarmGaveUp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		dial := func(ctx context.Context, _, _ string) (net.Conn, error) {
			select {
			case <-time.After(10 * time.Millisecond): // a slow connect
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			cn, sn := net.Pipe()
			go serveH2(sn)
			return cn, nil
		}
		ep, err := NewEndpoint("http://t:80/", dial, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ep.Use(wire.H2C, nil); err != nil {
			t.Fatal(err)
		}
		h := &H2Conn{ep: ep}
		defer h.Abort()
		go h.Warm(context.Background(), time.Now().Add(time.Millisecond))
		synctest.Wait() // warm's dial is under way
		l := &Link{ep: ep, h2: h}
		if status, _, err := l.exchangeH2(context.Background(), nil, time.Time{}); status != 200 || err != nil {
			t.Errorf("the attempt: %d, %v; want 200", status, err)
		}
	})
}
