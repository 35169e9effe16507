package httpwire

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/herdbench/herdbench/results"
)

// attemptOCC is one attempt at a unit of work on an OCC target, as in AWS's
// experiment: read the row's version, then write it back carrying that
// version, both on the client's connection. The attempt succeeds if the
// write does; a write that lost the race answers 409 Conflict, recorded as
// http_4xx; a failed read ends the attempt with its own outcome. Both
// requests share the attempt's deadline. err is a transport failure.
func (s *Attempts) attemptOCC(ctx context.Context, l *Link, deadline time.Time) (results.Outcome, error) {
	a, err := l.exchange(ctx, l.ep.occRead, deadline, true)
	if err != nil {
		return 0, err
	}
	if a.status != http.StatusOK {
		return results.FromStatus(a.status), nil
	}
	v, ok := parseVersion(a.body)
	if !ok {
		return results.Error, nil
	}
	l.buf = append(l.buf[:0], l.ep.occWrite[0]...)
	l.buf = strconv.AppendUint(l.buf, v, 10)
	l.buf = append(l.buf, l.ep.occWrite[1]...)
	a, err = l.exchange(ctx, l.buf, deadline, false)
	if err != nil {
		return 0, err
	}
	return results.FromStatus(a.status), nil
}

// parseVersion reads the version a read answered: decimal digits, with
// optional surrounding white space.
func parseVersion(b []byte) (uint64, bool) {
	i, j := 0, len(b)
	for i < j && isSpace(b[i]) {
		i++
	}
	for j > i && isSpace(b[j-1]) {
		j--
	}
	if i == j || j-i > 20 {
		return 0, false
	}
	var v uint64
	for _, c := range b[i:j] {
		if c < '0' || c > '9' {
			return 0, false
		}
		d := uint64(c - '0')
		if v > (1<<64-1-d)/10 {
			return 0, false
		}
		v = v*10 + d
	}
	return v, true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }
