package httpwire

import (
	"bufio"
	"errors"
	"io"
	"net/http"
	"strings"
	"syscall"
	"testing"
)

// slowRead is link.read's answer by net/http alone: the reference the
// fast path must agree with.
func slowRead(br *bufio.Reader, keepBody bool) (a answer, closing bool, err error) {
	var resp *http.Response
	for {
		resp, err = http.ReadResponse(br, nil)
		if err != nil {
			return a, true, err
		}
		if resp.StatusCode >= 200 || resp.StatusCode == http.StatusSwitchingProtocols {
			break
		}
	}
	a.status = resp.StatusCode
	if resp.StatusCode >= 400 {
		a.retryAfter = resp.Header.Get("Retry-After")
	}
	var body [64]byte
	done := false
	if keepBody {
		n := 0
		for n < len(body) && err == nil {
			var m int
			m, err = resp.Body.Read(body[n:])
			n += m
		}
		a.body = append([]byte(nil), body[:n]...)
		if err == io.EOF {
			err, done = nil, true
		}
	}
	if err == nil && !done {
		_, err = io.Copy(io.Discard, resp.Body)
	}
	_ = resp.Body.Close()
	return a, resp.Close || err != nil, err
}

// The fast path reads the answers it takes exactly as net/http does
// (status, Retry-After, the body's first bytes, whether the connection
// closes, the error's outcome, and where the next answer begins), and
// leaves every other shape to net/http untouched.
func TestReadFastAgreesWithNetHTTP(t *testing.T) {
	long := strings.Repeat("x", 100)
	cases := []struct {
		raw  string
		fast bool // the fast path takes it
	}{
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", true},
		{"HTTP/1.1 200 OK\r\ncontent-length: 3\r\nDate: x\r\n\r\nok\n", true},
		{"HTTP/1.1 503 Service Unavailable\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n", true},
		{"HTTP/1.1 503 Service Unavailable\r\nretry-after:  7 \r\nRetry-After: 9\r\nContent-Length: 0\r\n\r\n", true},
		{"HTTP/1.1 200 OK\r\nRetry-After: 2\r\nContent-Length: 0\r\n\r\n", true},
		{"HTTP/1.1 429 Too Many Requests\r\nContent-Length: 100\r\n\r\n" + long, true},
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: close\r\n\r\nok\n", true},
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nConnection: keep-alive, Close\r\n\r\nok\n", true},
		{"HTTP/1.1 200\r\nContent-Length: 2\r\n\r\n42", true},
		{"HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort", true}, // truncated
		{"HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n" + long[:70], true},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nok\n\r\n0\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\n\r\nuntil close", false},
		{"HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\nok\n", false},
		{"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n", false},
		{"HTTP/1.1 204 No Content\r\n\r\n", false},
		{"HTTP/1.1 304 Not Modified\r\nContent-Length: 3\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nContent-Length: 3\r\n\r\nok\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\nok\n", false},
		{"HTTP/1.1 200 OK\r\nX-Folded: a\r\n b\r\nContent-Length: 3\r\n\r\nok\n", false},
		{"HTTP/1.1 2x0 OK\r\nContent-Length: 3\r\n\r\nok\n", false},
		{"garbage\r\n\r\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Len", false},                               // the header block is not all there
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\nX-Bare: lf\r\n\r\nok\n", false}, // a bare LF: net/http's own line break
		{"HTTP/1.1 200 OK\nContent-Length: 3\r\n\r\nok\n", false},
		{"HTTP/1.1 200 OK\r\nContent-Length: 3\r\nX-Split: a\nb\r\n\r\nok\n", false}, // net/http: a malformed line "b"
	}
	next := "HTTP/1.1 201 Created\r\nContent-Length: 0\r\n\r\n"
	for _, c := range cases {
		for _, keep := range []bool{false, true} {
			raw := c.raw
			if raw != "" && !strings.Contains(raw, "short") && !strings.HasSuffix(raw, long[:70]) && !strings.Contains(raw, "until close") {
				raw += next
			}
			var body [64]byte
			fbr := bufio.NewReaderSize(strings.NewReader(raw), 4096)
			fa, fclosing, ok, ferr := readFast(fbr, body[:], keep)
			if ok != c.fast {
				t.Errorf("%q: fast path took it %v, want %v", c.raw, ok, c.fast)
			}
			if !ok {
				if fbr.Buffered() != len(raw) && len(raw) > 0 {
					t.Errorf("%q: the fast path declined but consumed bytes", c.raw)
				}
				continue
			}
			sbr := bufio.NewReaderSize(strings.NewReader(raw), 4096)
			sa, sclosing, serr := slowRead(sbr, keep)
			if fa.status != sa.status || fa.retryAfter != sa.retryAfter || string(fa.body) != string(sa.body) || fclosing != sclosing ||
				Classify(ferr) != Classify(serr) || (ferr == nil) != (serr == nil) {
				t.Errorf("%q keep %v: fast %+v closing %v err %v; net/http %+v closing %v err %v", c.raw, keep, fa, fclosing, ferr, sa, sclosing, serr)
			}
			if ferr == nil {
				frest, _ := io.ReadAll(fbr)
				srest, _ := io.ReadAll(sbr)
				if string(frest) != string(srest) {
					t.Errorf("%q: after the fast path %q is left; after net/http %q", c.raw, frest, srest)
				}
			} else if !errors.Is(ferr, io.ErrUnexpectedEOF) {
				t.Errorf("%q: fast path error %v; want an unexpected EOF", c.raw, ferr)
			}
		}
	}
}

// The target's answers cost the fast path no allocation.
func TestReadFastAllocatesNothing(t *testing.T) {
	raw := "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nDate: Tue, 01 Dec 2026 00:00:00 GMT\r\n\r\nok\n"
	r := strings.NewReader(raw)
	br := bufio.NewReaderSize(r, 4096)
	var body [64]byte
	allocs := testing.AllocsPerRun(100, func() {
		r.Reset(raw)
		br.Reset(r)
		if _, _, ok, err := readFast(br, body[:], true); !ok || err != nil {
			t.Fatalf("fast path: ok %v, err %v", ok, err)
		}
	})
	if allocs != 0 {
		t.Errorf("%v allocations per answer; want 0", allocs)
	}
}

// resetReader is a connection reset by its peer: the first read reports
// the reset, every later one EOF, as a socket does.
type resetReader struct{ told bool }

func (r *resetReader) Read([]byte) (int, error) {
	if r.told {
		return 0, io.EOF
	}
	r.told = true
	return 0, syscall.ECONNRESET
}

// A connection that fails before any byte of an answer reports its error
// as net/http would, once: a reset is a reset (not the EOF a second read
// would see), a closed connection an unexpected EOF.
func TestReadFastFailedConnection(t *testing.T) {
	var body [64]byte
	_, closing, ok, err := readFast(bufio.NewReader(&resetReader{}), body[:], false)
	if !ok || !closing || !errors.Is(err, syscall.ECONNRESET) {
		t.Errorf("reset: ok %v closing %v err %v; want the reset, the connection closing", ok, closing, err)
	}
	_, _, serr := slowRead(bufio.NewReader(&resetReader{}), false)
	if !errors.Is(serr, syscall.ECONNRESET) {
		t.Errorf("net/http: %v; want the reset", serr)
	}
	_, closing, ok, err = readFast(bufio.NewReader(strings.NewReader("")), body[:], false)
	_, _, serr = slowRead(bufio.NewReader(strings.NewReader("")), false)
	if !ok || !closing || err != io.ErrUnexpectedEOF || serr != io.ErrUnexpectedEOF {
		t.Errorf("closed: ok %v closing %v err %v (net/http %v); want unexpected EOF from both", ok, closing, err, serr)
	}
}

// BenchmarkReadFast reads net/http's answer to the probe: what every
// attempt against a Go target parses.
func BenchmarkReadFast(b *testing.B) {
	raw := "HTTP/1.1 200 OK\r\nDate: Thu, 03 Dec 2026 14:00:00 GMT\r\nContent-Length: 3\r\nContent-Type: text/plain; charset=utf-8\r\n\r\nok\n"
	r := strings.NewReader(raw)
	br := bufio.NewReaderSize(r, 4096)
	var body [64]byte
	for b.Loop() {
		r.Reset(raw)
		br.Reset(r)
		if _, _, ok, err := readFast(br, body[:], false); !ok || err != nil {
			b.Fatalf("fast path: ok %v, err %v", ok, err)
		}
	}
}
