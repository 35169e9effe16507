package httpwire

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"golang.org/x/net/http2"

	"github.com/herdbench/herdbench/results"
)

// Classify maps a transport error to an Outcome, once, by error identity
// (errors.Is and errors.As), never by its text.
func Classify(err error) results.Outcome {
	var ne net.Error
	var ga http2.GoAwayError //lint:ignore SA1019 x/net's transport, which the proxy forwards HTTP/2 with, returns it for the streams a GOAWAY refused
	var sga *h2GoAwayError
	var se http2.StreamError
	switch {
	case err == nil:
		return results.OK
	case errors.As(err, &sga), errors.As(err, &ga):
		// A stream the server had not taken when it sent GOAWAY: not
		// processed, as a refused connection's request.
		return results.Refused
	case errors.As(err, &se):
		if se.Code == http2.ErrCodeRefusedStream {
			return results.Refused
		}
		return results.Reset // the server reset the stream
	case errors.Is(err, context.DeadlineExceeded):
		return results.Timeout
	case errors.Is(err, syscall.ECONNREFUSED):
		return results.Refused
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, syscall.EPIPE),
		errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return results.Reset
	case errors.As(err, &ne) && ne.Timeout():
		return results.Timeout
	}
	return results.Error
}
