package clients

import (
	"bufio"
	"bytes"
	"io"
	"strconv"
)

// readFast reads one answer from br without allocating, when the whole
// header block is already buffered and is of the plain shape a target
// sends: HTTP/1.1, a final status (not 1xx, 204 or 304), a
// Content-Length and no Transfer-Encoding, or when the connection failed
// before any byte of an answer. It reports ok false, having consumed
// nothing, for anything else: the caller then reads the answer
// with net/http, which knows every other shape. It keeps the body's first
// bytes in body if keepBody, as link.read does.
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
	line, rest, _ := bytes.Cut(head, crlf)
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
		h, rest, _ = bytes.Cut(rest, crlf)
		name, value, found := bytes.Cut(h, colon)
		if !found || len(name) == 0 || name[0] == ' ' || name[0] == '\t' || bytes.IndexByte(name, ' ') >= 0 {
			return a, false, false, nil // a folded or malformed line
		}
		value = bytes.Trim(value, " \t")
		switch {
		case bytes.EqualFold(name, hContentLength):
			if length >= 0 {
				return a, false, false, nil // repeated: net/http decides
			}
			n, err := strconv.ParseInt(string(value), 10, 64)
			if err != nil || n < 0 {
				return a, false, false, nil
			}
			length = n
		case bytes.EqualFold(name, hTransferEncoding):
			return a, false, false, nil
		case bytes.EqualFold(name, hConnection):
			closing = closing || hasToken(value, tClose)
		case bytes.EqualFold(name, hRetryAfter):
			if status >= 400 && a.retryAfter == "" {
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
		if bytes.EqualFold(bytes.Trim(f, " \t"), t) {
			return true
		}
	}
	return false
}

var (
	crlf              = []byte("\r\n")
	crlfcrlf          = []byte("\r\n\r\n")
	colon             = []byte(":")
	comma             = []byte(",")
	http11            = []byte("HTTP/1.1 ")
	hContentLength    = []byte("Content-Length")
	hTransferEncoding = []byte("Transfer-Encoding")
	hConnection       = []byte("Connection")
	hRetryAfter       = []byte("Retry-After")
	tClose            = []byte("close")
)
