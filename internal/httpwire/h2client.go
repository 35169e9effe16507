package httpwire

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"net"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"
)

// h2client is one HTTP/2 client connection. Its frames are
// golang.org/x/net/http2's (a Framer reads them, another writes them) and
// its headers x/net's hpack; the loop around them is herdbench's, for one
// reason: every stream ready to go adds its frames to one buffer, and one
// write sends them all. A stream that finds the buffer being written leaves
// its frames for the write after it (a group commit), so the streams of a
// busy connection share a syscall, as h2load's event loop does, where x/net's
// ClientConn writes (and flushes) each stream's HEADERS by itself.
//
// One goroutine reads the connection (readLoop) and hands each answer to
// the stream's waiting client; there is no goroutine per stream and no
// hidden re-send: a stream the server refuses or a GOAWAY leaves unserved
// fails, to be counted and retried (or not) by the client's strategy.
type h2client struct {
	nc  net.Conn
	rfr *http2.Framer // the read loop's

	mu      sync.Mutex
	cond    sync.Cond // a stream slot, a send window or the connection's state changed
	waiters int       // goroutines waiting on cond
	wfr     *http2.Framer
	out     []byte        // frames written, to be sent (wfr writes here)
	spare   []byte        // the buffer being sent, reused for the next batch
	kicked  bool          // the writer has been woken and has not taken out yet
	kick    chan struct{} // wakes the writer
	dead    chan struct{} // closed when the connection fails: the writer ends
	henc    *hpack.Encoder
	hbuf    bytes.Buffer
	hgen    uint64                 // bumped whenever the encoder's dynamic table may have changed
	hkept   map[*h2message]h2block // stable messages' blocks that only index the table

	streams    map[uint32]*h2stream
	free       sync.Pool // *h2stream, ended, for the next streams (the connection's own: a test's synctest bubble owns its channels and timers)
	nextID     uint32
	maxStreams int    // the server's SETTINGS_MAX_CONCURRENT_STREAMS
	maxFrame   int    // the server's SETTINGS_MAX_FRAME_SIZE
	initWin    int32  // the server's SETTINGS_INITIAL_WINDOW_SIZE
	sendWin    int64  // the connection's send window
	unacked    uint32 // bytes received that no WINDOW_UPDATE has given back yet
	goAway     *h2GoAwayError
	closing    bool  // closed by herdbench (abort)
	err        error // the connection failed: no new stream; open ones failed with it
}

// h2stream is one stream of an h2client, owned by the client waiting for
// its answer; c.mu guards it while open.
type h2stream struct {
	c          *h2client // set once, when made
	id         uint32
	done       chan struct{} // one signal per stream, when it ends (h2client.endLocked)
	timer      *time.Timer   // runs expire at the deadline; reused
	deadline   time.Time     // zero for none
	ended      bool
	status     int
	retryAfter string
	read       int // bytes of body read
	sendWin    int64
	err        error
}

// h2message is an HTTP/2 request: its header fields (pseudo-headers first)
// and its body.
type h2message struct {
	fields []hpack.HeaderField
	body   []byte
	// stable: the endpoint's own (the probe, a fixed request of a mix),
	// sent again and again, so its header block is worth keeping.
	stable bool
}

// h2block is a stable message's header block as last encoded, valid while
// the encoder's dynamic table is still at generation gen.
type h2block struct {
	gen   uint64
	block []byte
}

// The connection's settings and windows. A response body is read up to
// MaxResponseBody and the stream then cancelled, so a stream's receive
// window never needs topping up; the connection's is given back by
// WINDOW_UPDATE once half of it has been read.
const (
	h2StreamWindow = MaxResponseBody + 1<<20
	h2MaxHeaders   = 10 << 20 // SETTINGS_MAX_HEADER_LIST_SIZE, as x/net's
)

// h2ConnWindow is the connection's receive window (a variable for tests).
var h2ConnWindow uint32 = 1 << 30

// h2GoAwayError fails a stream the server's GOAWAY left unprocessed (or
// one started after it): the server did not take it, as a refused
// connection's request.
type h2GoAwayError struct {
	LastStreamID uint32
	Code         http2.ErrCode
}

func (e *h2GoAwayError) Error() string {
	return fmt.Sprintf("clients: HTTP/2: the server sent GOAWAY (last stream %d, %v); the stream was not processed", e.LastStreamID, e.Code)
}

// errH2Preface is a server whose first frame was not its SETTINGS.
var errH2Preface = errors.New("clients: HTTP/2: the server's first frame was not SETTINGS")

// newH2Client speaks HTTP/2 on nc: it sends the client preface and its
// settings and reads the server's settings (within ctx) before the
// connection takes streams, so the first streams already respect the
// server's limits.
func newH2Client(ctx context.Context, nc net.Conn) (*h2client, error) {
	c := &h2client{nc: nc, streams: map[uint32]*h2stream{}, nextID: 1, maxStreams: math.MaxInt32, maxFrame: 16 << 10, initWin: 65535, sendWin: 65535}
	c.cond.L = &c.mu
	c.kick, c.dead = make(chan struct{}, 1), make(chan struct{})
	c.free.New = func() any { return &h2stream{c: c, done: make(chan struct{}, 1)} }
	c.rfr = http2.NewFramer(nil, bufio.NewReaderSize(nc, 16<<10))
	c.rfr.ReadMetaHeaders = hpack.NewDecoder(4096, nil)
	c.rfr.MaxHeaderListSize = h2MaxHeaders
	c.wfr = http2.NewFramer(h2out{c}, nil)
	c.henc = hpack.NewEncoder(&c.hbuf)

	stop := context.AfterFunc(ctx, func() { _ = nc.SetDeadline(aLongTimeAgo) })
	defer stop()
	if d, ok := ctx.Deadline(); ok {
		_ = nc.SetDeadline(d)
	}
	c.out = append(c.out, http2.ClientPreface...)
	_ = c.wfr.WriteSettings(
		http2.Setting{ID: http2.SettingEnablePush, Val: 0},
		http2.Setting{ID: http2.SettingInitialWindowSize, Val: h2StreamWindow},
		http2.Setting{ID: http2.SettingMaxHeaderListSize, Val: h2MaxHeaders},
	)
	_ = c.wfr.WriteWindowUpdate(0, h2ConnWindow-65535)
	if _, err := nc.Write(c.out); err != nil {
		return nil, handshakeErr(ctx, err)
	}
	c.out = c.out[:0]
	f, err := c.rfr.ReadFrame()
	if err != nil {
		return nil, handshakeErr(ctx, err)
	}
	sf, ok := f.(*http2.SettingsFrame)
	if !ok || sf.IsAck() {
		return nil, errH2Preface
	}
	if !stop() {
		return nil, handshakeErr(ctx, context.Canceled)
	}
	_ = nc.SetDeadline(time.Time{})
	c.mu.Lock()
	err = c.settingsLocked(sf)
	c.mu.Unlock()
	if err != nil {
		return nil, err
	}
	go c.readLoop()
	go c.writeLoop()
	return c, nil
}

// handshakeErr is err, or ctx's error when ctx ended the handshake.
func handshakeErr(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	return err
}

// h2out is where the write Framer writes: the batch to send.
type h2out struct{ c *h2client }

func (w h2out) Write(p []byte) (int, error) {
	w.c.out = append(w.c.out, p...)
	return len(p), nil
}

// flushLocked has the frames written so far sent, by the connection's
// writer (writeLoop), which sends them with every other stream's that
// came meanwhile. c.mu is held.
func (c *h2client) flushLocked() {
	if !c.kicked && len(c.out) > 0 && c.err == nil {
		c.kicked = true
		c.kick <- struct{}{}
	}
}

// writeLoop sends the frames the streams write, batched: woken by the first
// stream with frames to send, it lets the goroutines already runnable
// (the clients the read loop just answered, writing their next requests)
// run first, then sends everything written by then in one write.
func (c *h2client) writeLoop() {
	for {
		select {
		case <-c.kick:
		case <-c.dead:
			return
		}
		runtime.Gosched()
		c.mu.Lock()
		b := c.out
		c.out, c.kicked = c.spare[:0], false
		c.mu.Unlock()
		if len(b) == 0 {
			continue
		}
		_, err := c.nc.Write(b)
		c.mu.Lock()
		c.spare = b
		if err != nil {
			c.failLocked(err)
		}
		c.mu.Unlock()
	}
}

// canTake reports whether the connection can take a new stream.
func (c *h2client) canTake() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unusableLocked() == nil
}

// unusableLocked is why the connection takes no new stream, nil if it does.
func (c *h2client) unusableLocked() error {
	switch {
	case c.err != nil:
		return c.err
	case c.goAway != nil:
		return c.goAway
	case c.nextID > math.MaxInt32:
		return &h2GoAwayError{LastStreamID: c.nextID - 2, Code: http2.ErrCodeNo} // stream IDs used up
	}
	return nil
}

// failed reports whether the connection has failed (or closed).
func (c *h2client) failed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err != nil
}

// close ends the connection and fails every stream on it with errAborted.
func (c *h2client) close() {
	c.mu.Lock()
	c.closing = true
	c.failLocked(errAborted)
	c.mu.Unlock()
}

// failLocked fails the connection with err (the first error wins) and
// every open stream with it, and closes the socket.
func (c *h2client) failLocked(err error) {
	if c.err == nil {
		if c.closing {
			err = errAborted
		}
		c.err = err
		_ = c.nc.Close()
		close(c.dead)
	}
	for _, st := range c.streams {
		c.endLocked(st, c.err)
	}
	c.broadcastLocked()
}

func (c *h2client) broadcastLocked() {
	if c.waiters > 0 {
		c.cond.Broadcast()
	}
}

// endLocked ends st with err (nil: answered) and wakes its client; a
// connection told to go away closes once its last stream has ended.
func (c *h2client) endLocked(st *h2stream, err error) {
	if st.ended {
		return
	}
	st.ended, st.err = true, err
	delete(c.streams, st.id)
	st.done <- struct{}{}
	c.broadcastLocked()
	if c.goAway != nil && len(c.streams) == 0 && c.err == nil {
		c.failLocked(c.goAway)
	}
}

// waitLocked waits on c.cond until it is signalled, ctx ends or the
// deadline (if not zero) passes. These waits are rare (a stream slot, a
// send window); an answer's deadline is the stream's own timer's (expire).
func (c *h2client) waitLocked(ctx context.Context, deadline time.Time) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	wake := func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	}
	stop := context.AfterFunc(ctx, wake)
	defer stop()
	if !deadline.IsZero() {
		t := time.AfterFunc(time.Until(deadline), wake)
		defer t.Stop()
	}
	c.waiters++
	c.cond.Wait()
	c.waiters--
	if err := ctx.Err(); err != nil {
		return err
	}
	if !deadline.IsZero() && !time.Now().Before(deadline) {
		return context.DeadlineExceeded
	}
	return nil
}

// roundTrip sends m as a new stream and waits for its answer's status and
// Retry-After, its body read (up to MaxResponseBody) and discarded, until
// the deadline (if not zero) or the connection's end. ctx bounds only the
// rare waits before the answer (a stream slot, a send window): the run's
// end closes every connection (H2Conn.abort), which ends its streams.
func (c *h2client) roundTrip(ctx context.Context, m *h2message, deadline time.Time) (status int, retryAfter string, err error) {
	st := c.free.Get().(*h2stream)
	defer c.free.Put(st)
	c.mu.Lock()
	for c.unusableLocked() == nil && len(c.streams) >= c.maxStreams {
		if err := c.waitLocked(ctx, deadline); err != nil {
			c.mu.Unlock()
			return 0, "", err
		}
	}
	if err := c.unusableLocked(); err != nil {
		c.mu.Unlock()
		return 0, "", err
	}
	st.id, st.deadline, st.sendWin = c.nextID, deadline, int64(c.initWin)
	st.ended, st.status, st.retryAfter, st.read, st.err = false, 0, "", 0, nil
	c.nextID += 2
	c.streams[st.id] = st
	if !deadline.IsZero() {
		if st.timer == nil {
			st.timer = time.AfterFunc(time.Until(deadline), st.expire)
		} else {
			st.timer.Reset(time.Until(deadline))
		}
	}
	c.writeHeadersLocked(st.id, m)
	if err := c.writeBodyLocked(ctx, st, m.body, deadline); err != nil && !st.ended {
		_ = c.wfr.WriteRSTStream(st.id, http2.ErrCodeCancel)
		c.endLocked(st, err)
	}
	c.flushLocked()
	c.mu.Unlock()
	// The answer, the deadline (expire) or the connection's end (the
	// run's end closes it: H2Conn.abort) ends the stream.
	<-st.done
	if !deadline.IsZero() {
		st.timer.Stop()
	}
	return st.status, st.retryAfter, st.err
}

// expire ends the stream when its deadline has passed, telling the server
// (RST_STREAM CANCEL). A timer that fired for an earlier stream of the
// same h2stream finds a later deadline (or none) and does nothing.
func (st *h2stream) expire() {
	c := st.c
	c.mu.Lock()
	defer c.mu.Unlock()
	if st.ended || st.deadline.IsZero() || time.Now().Before(st.deadline) {
		return
	}
	_ = c.wfr.WriteRSTStream(st.id, http2.ErrCodeCancel)
	c.endLocked(st, context.DeadlineExceeded)
	c.flushLocked()
}

// writeHeadersLocked writes a stream's HEADERS (and CONTINUATIONs) for m.
// A stable message whose every field is in the encoder's tables encodes
// as indexes alone, which leave the tables as they are: that block is kept
// and sent again as long as nothing else has changed the dynamic table.
func (c *h2client) writeHeadersLocked(id uint32, m *h2message) {
	var block []byte
	if k, ok := c.hkept[m]; ok && k.gen == c.hgen {
		block = k.block
	} else {
		c.hbuf.Reset()
		for _, f := range m.fields {
			_ = c.henc.WriteField(f)
		}
		block = c.hbuf.Bytes()
		switch {
		case !indexesOnly(block, len(m.fields)):
			c.hgen++ // new entries, perhaps evictions
		case m.stable:
			if c.hkept == nil {
				c.hkept = map[*h2message]h2block{}
			}
			c.hkept[m] = h2block{gen: c.hgen, block: bytes.Clone(block)}
		}
	}
	endStream := len(m.body) == 0
	first := true
	for first || len(block) > 0 {
		chunk := block[:min(len(block), c.maxFrame)]
		block = block[len(chunk):]
		if first {
			_ = c.wfr.WriteHeaders(http2.HeadersFrameParam{StreamID: id, BlockFragment: chunk, EndStream: endStream, EndHeaders: len(block) == 0})
			first = false
		} else {
			_ = c.wfr.WriteContinuation(id, len(block) == 0, chunk)
		}
	}
}

// writeBodyLocked writes body as DATA frames within the send windows,
// sending what is written and waiting for the server's WINDOW_UPDATE when
// a window is spent.
func (c *h2client) writeBodyLocked(ctx context.Context, st *h2stream, body []byte, deadline time.Time) error {
	for len(body) > 0 {
		if st.ended {
			return nil // answered (or failed) before the whole body was sent
		}
		if c.err != nil {
			return c.err
		}
		n := int64(min(len(body), c.maxFrame))
		n = min(n, c.sendWin, st.sendWin)
		if n <= 0 {
			c.flushLocked()
			if err := c.waitLocked(ctx, deadline); err != nil {
				return err
			}
			continue
		}
		_ = c.wfr.WriteData(st.id, int(n) == len(body), body[:n])
		body = body[n:]
		c.sendWin -= n
		st.sendWin -= n
	}
	return nil
}

// readLoop reads the server's frames until the connection fails.
func (c *h2client) readLoop() {
	for {
		f, err := c.rfr.ReadFrame()
		c.mu.Lock()
		if err == nil {
			err = c.frameLocked(f)
		} else if se := (http2.StreamError{}); errors.As(err, &se) {
			// One stream's frame was malformed: that stream fails.
			if st := c.streams[se.StreamID]; st != nil {
				_ = c.wfr.WriteRSTStream(se.StreamID, se.Code)
				c.endLocked(st, se)
				c.flushLocked()
			}
			err = nil
		}
		if err != nil {
			c.failLocked(err)
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
	}
}

// frameLocked handles one frame from the server.
func (c *h2client) frameLocked(f http2.Frame) error {
	switch f := f.(type) {
	case *http2.MetaHeadersFrame:
		st := c.streams[f.StreamID]
		if st == nil {
			return nil // cancelled already
		}
		if st.status == 0 {
			n, err := strconv.Atoi(f.PseudoValue("status"))
			if err != nil || n < 100 || n > 999 {
				_ = c.wfr.WriteRSTStream(st.id, http2.ErrCodeProtocol)
				c.endLocked(st, http2.StreamError{StreamID: st.id, Code: http2.ErrCodeProtocol, Cause: fmt.Errorf("bad :status %q", f.PseudoValue("status"))})
				c.flushLocked()
				return nil
			}
			if n < 200 {
				return nil // informational: the answer is still to come
			}
			st.status = n
			if n >= 400 {
				for _, hf := range f.RegularFields() {
					if hf.Name == "retry-after" {
						st.retryAfter = hf.Value
					}
				}
			}
		}
		if f.StreamEnded() {
			c.endLocked(st, nil)
		}
	case *http2.DataFrame:
		if n := f.Length; n > 0 {
			c.unacked += n
			if c.unacked >= h2ConnWindow/2 {
				_ = c.wfr.WriteWindowUpdate(0, c.unacked)
				c.unacked = 0
				c.flushLocked()
			}
		}
		st := c.streams[f.StreamID]
		if st == nil {
			return nil
		}
		st.read += len(f.Data())
		switch {
		case f.StreamEnded():
			c.endLocked(st, nil)
		case st.read >= MaxResponseBody:
			// Enough read: the rest is not wanted.
			_ = c.wfr.WriteRSTStream(st.id, http2.ErrCodeCancel)
			c.endLocked(st, nil)
			c.flushLocked()
		}
	case *http2.RSTStreamFrame:
		if st := c.streams[f.StreamID]; st != nil {
			if f.ErrCode == http2.ErrCodeNo && st.status != 0 {
				c.endLocked(st, nil) // a whole answer, the rest of the request not wanted
			} else {
				c.endLocked(st, http2.StreamError{StreamID: f.StreamID, Code: f.ErrCode})
			}
		}
	case *http2.SettingsFrame:
		if !f.IsAck() {
			return c.settingsLocked(f)
		}
	case *http2.WindowUpdateFrame:
		if f.StreamID == 0 {
			c.sendWin += int64(f.Increment)
		} else if st := c.streams[f.StreamID]; st != nil {
			st.sendWin += int64(f.Increment)
		}
		c.broadcastLocked()
	case *http2.PingFrame:
		if !f.IsAck() {
			_ = c.wfr.WritePing(true, f.Data)
			c.flushLocked()
		}
	case *http2.GoAwayFrame:
		ga := &h2GoAwayError{LastStreamID: f.LastStreamID, Code: f.ErrCode}
		if c.goAway == nil || ga.LastStreamID < c.goAway.LastStreamID {
			c.goAway = ga
		}
		for id, st := range c.streams {
			if id > c.goAway.LastStreamID {
				c.endLocked(st, c.goAway)
			}
		}
		if len(c.streams) == 0 && c.err == nil {
			c.failLocked(c.goAway)
		}
		c.broadcastLocked()
	case *http2.PushPromiseFrame:
		return http2.ConnectionError(http2.ErrCodeProtocol) // push is disabled in our SETTINGS
	}
	return nil
}

// settingsLocked applies the server's settings and acknowledges them.
func (c *h2client) settingsLocked(f *http2.SettingsFrame) error {
	err := f.ForeachSetting(func(s http2.Setting) error {
		switch s.ID {
		case http2.SettingMaxConcurrentStreams:
			c.maxStreams = int(min(s.Val, math.MaxInt32))
		case http2.SettingMaxFrameSize:
			c.maxFrame = int(s.Val)
		case http2.SettingInitialWindowSize:
			delta := int64(s.Val) - int64(c.initWin)
			for _, st := range c.streams {
				st.sendWin += delta
			}
			c.initWin = int32(s.Val)
		case http2.SettingHeaderTableSize:
			c.henc.SetMaxDynamicTableSizeLimit(s.Val)
			c.hgen++ // the next block carries the size update
		}
		return nil
	})
	if err != nil {
		return err
	}
	_ = c.wfr.WriteSettingsAck()
	c.flushLocked()
	c.broadcastLocked()
	return nil
}

// indexesOnly reports whether an HPACK block of n fields is n one-byte
// indexed fields (RFC 7541 §6.1: the high bit set, an index below 127),
// which change nothing in the dynamic table.
func indexesOnly(block []byte, n int) bool {
	if len(block) != n {
		return false
	}
	for _, b := range block {
		if b&0x80 == 0 || b == 0xff {
			return false
		}
	}
	return true
}

// h2Message reads the bytes of a request as the HTTP/1.1 path writes them
// (herdbench's own: request line, Host, headers, Content-Length, body)
// back into the HTTP/2 request that carries the same: the pseudo-headers
// first, names in lower case, the connection-specific headers dropped
// (RFC 9113 §8.2.2), a content-length as x/net sends one (for a body, and
// for an empty POST, PUT or PATCH).
func h2Message(req []byte, scheme string) (h2message, error) {
	i := bytes.Index(req, []byte("\r\n\r\n"))
	if i < 0 {
		return h2message{}, errors.New("clients: HTTP/2: a request without the end of its head")
	}
	head, body := string(req[:i]), req[i+4:]
	line, rest, _ := strings.Cut(head, "\r\n")
	method, target, ok := strings.Cut(line, " ")
	target, _, ok2 := strings.Cut(target, " ")
	if !ok || !ok2 {
		return h2message{}, fmt.Errorf("clients: HTTP/2: a request line %q without a method and a target", line)
	}
	fields := make([]hpack.HeaderField, 4, 8+strings.Count(rest, "\r\n"))
	authority := ""
	for rest != "" {
		var h string
		h, rest, _ = strings.Cut(rest, "\r\n")
		name, value, _ := strings.Cut(h, ":")
		name, value = strings.ToLower(name), strings.Trim(value, " \t")
		switch name {
		case "host":
			authority = value
			continue
		case "content-length", "connection", "proxy-connection", "keep-alive", "transfer-encoding", "upgrade":
			continue
		case "te":
			if value != "trailers" {
				continue
			}
		}
		fields = append(fields, hpack.HeaderField{Name: name, Value: value})
	}
	fields[0] = hpack.HeaderField{Name: ":method", Value: method}
	fields[1] = hpack.HeaderField{Name: ":scheme", Value: scheme}
	fields[2] = hpack.HeaderField{Name: ":authority", Value: authority}
	fields[3] = hpack.HeaderField{Name: ":path", Value: target}
	switch {
	case len(body) > 0:
		fields = append(fields, hpack.HeaderField{Name: "content-length", Value: strconv.Itoa(len(body))})
	case method == "POST" || method == "PUT" || method == "PATCH":
		fields = append(fields, hpack.HeaderField{Name: "content-length", Value: "0"})
	}
	return h2message{fields: fields, body: body}, nil
}
