package httpwire

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// readFast reads one answer from br without allocating, when the whole
// header block is already buffered and is of the plain shape a target
// sends: HTTP/1.1, a final status (not 1xx, 204 or 304), a
// Content-Length and no Transfer-Encoding, every line ending in CRLF; or
// when the connection failed before any byte of an answer. It reports ok
// false, having consumed nothing, for anything else: the caller then
// reads the answer with net/http, which knows every other shape. It keeps
// the body's first bytes in body if keepBody, as link.read does.
func readFast(br *bufio.Reader, body []byte, keepBody bool) (a answer, closing, ok bool, err error) {
	if _, err := br.Peek(1); err != nil {
		// As net/http reports it: the buffer hands an error out once (a
		// reset, then only EOF), so it must not be left for net/http.
		if err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return a, true, true, err
	}
	buf, _ := br.Peek(br.Buffered())
	end := bytes.Index(buf, crlfcrlf)
	if end < 0 {
		return a, false, false, nil
	}
	head := buf[:end+2] // each line with its CRLF
	line, rest, ok := nextLine(head)
	if !ok {
		return a, false, false, nil
	}
	// "HTTP/1.1 200 OK": a 3-digit status after the version.
	if len(line) < 12 || !bytes.HasPrefix(line, http11) || (len(line) > 12 && line[12] != ' ') {
		return a, false, false, nil
	}
	status := 0
	for _, c := range line[9:12] {
		if c < '0' || c > '9' {
			return a, false, false, nil
		}
		status = status*10 + int(c-'0')
	}
	if status < 200 || status == 204 || status == 304 {
		return a, false, false, nil
	}
	length := int64(-1)
	for len(rest) > 0 {
		var h []byte
		if h, rest, ok = nextLine(rest); !ok {
			return a, false, false, nil
		}
		c := bytes.IndexByte(h, ':')
		if c <= 0 || h[0] == ' ' || h[0] == '\t' || bytes.IndexByte(h[:c], ' ') >= 0 {
			return a, false, false, nil // a folded or malformed line
		}
		name, value := h[:c], trimOWS(h[c+1:])
		// The header's length picks the one name it can be: most of an
		// answer's headers (Date, Content-Type) are compared with none.
		switch len(name) {
		case len(hContentLength):
			if !bytes.EqualFold(name, hContentLength) {
				break
			}
			if length >= 0 {
				return a, false, false, nil // repeated: net/http decides
			}
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 {
				return a, false, false, nil
			}
			length = n
		case len(hTransferEncoding):
			if bytes.EqualFold(name, hTransferEncoding) {
				return a, false, false, nil
			}
		case len(hConnection):
			if bytes.EqualFold(name, hConnection) {
				closing = closing || hasToken(value, tClose)
			}
		case len(hRetryAfter):
			if status >= 400 && a.retryAfter == "" && bytes.EqualFold(name, hRetryAfter) {
				a.retryAfter = string(value)
			}
		}
	}
	if length < 0 || length > MaxResponseBody {
		return a, false, false, nil // no length, or longer than is read: net/http's path
	}
	a.status = status
	_, _ = br.Discard(end + 4)
	if keepBody {
		n := int(min(length, int64(len(body))))
		m, rerr := io.ReadFull(br, body[:n])
		a.body = body[:m]
		length -= int64(m)
		if rerr != nil {
			return a, true, true, io.ErrUnexpectedEOF
		}
	}
	for length > 0 {
		n, derr := br.Discard(int(min(length, 1<<30)))
		length -= int64(n)
		if derr != nil {
			return a, true, true, io.ErrUnexpectedEOF
		}
	}
	return a, closing, true, nil
}

// hasToken reports whether the comma-separated list v holds token t
// (case-insensitively).
func hasToken(v, t []byte) bool {
	for len(v) > 0 {
		var f []byte
		f, v, _ = bytes.Cut(v, comma)
		if bytes.EqualFold(trimOWS(f), t) {
			return true
		}
	}
	return false
}

// nextLine splits the first line off b, which ends in CRLF: ok is false
// for a line ending in a bare LF, which net/http reads as its own line
// break, so that the fast path leaves such an answer to it.
func nextLine(b []byte) (line, rest []byte, ok bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 1 || b[i-1] != '\r' {
		return nil, nil, false
	}
	return b[:i-1], b[i+1:], true
}

// trimOWS returns v without its leading and trailing spaces and tabs
// (HTTP's optional whitespace), as bytes.Trim(v, " \t") does without
// building a set of the two for each header.
func trimOWS(v []byte) []byte {
	for len(v) > 0 && (v[0] == ' ' || v[0] == '\t') {
		v = v[1:]
	}
	for len(v) > 0 && (v[len(v)-1] == ' ' || v[len(v)-1] == '\t') {
		v = v[:len(v)-1]
	}
	return v
}

var (
	crlfcrlf          = []byte("\r\n\r\n")
	comma             = []byte(",")
	http11            = []byte("HTTP/1.1 ")
	hContentLength    = []byte("Content-Length")
	hTransferEncoding = []byte("Transfer-Encoding")
	hConnection       = []byte("Connection")
	hRetryAfter       = []byte("Retry-After")
	tClose            = []byte("close")
)
