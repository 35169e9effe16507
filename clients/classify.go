package clients

import (
	"context"
	"errors"
	"io"
	"net"
	"syscall"

	"github.com/herdbench/herdbench/results"
)

// Classify maps a transport error to an Outcome, once, by error identity
// (errors.Is and errors.As), never by its text.
func Classify(err error) results.Outcome {
	var ne net.Error
	switch {
	case err == nil:
		return results.OK
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
