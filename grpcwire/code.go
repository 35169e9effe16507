package grpcwire

import "google.golang.org/grpc/codes"

// Code is the gRPC status code herdbench's gRPC target ends a call with
// for an HTTP status its model answers with, and so the code a grpc-go
// client of the target sees: the target sends it (target's answerGRPC),
// and the simulator and the client step function read it
// (clients.GRPCCode) to decide grpc-go's retries. It is one table for
// both, so the two engines cannot part.
//
// It is grpc-go's own reading of an HTTP status that comes without a
// grpc-status, as from a proxy or a plain HTTP/2 server
// (google.golang.org/grpc/internal/transport's HTTPStatusConvTab, gRPC's
// doc/http-grpc-status-mapping.md: a status its table lacks is UNKNOWN),
// but for three statuses to which the model gives a meaning of its own,
// which a gRPC server states with its own code:
//
//	2xx            OK (the call is answered, with an empty message)
//	400            INTERNAL
//	401            UNAUTHENTICATED
//	403            PERMISSION_DENIED
//	404            UNIMPLEMENTED
//	409            ABORTED: a stale OCC write (grpc-go would read UNKNOWN)
//	429            RESOURCE_EXHAUSTED: pushback, overload (grpc-go: UNAVAILABLE)
//	500            INTERNAL: the server failed (grpc-go: UNKNOWN)
//	502, 503, 504  UNAVAILABLE
//	any other      UNKNOWN: 1xx, 3xx, the other 4xx, 501, 505..599
//
// docs/grpc.md describes the table.
func Code(status int) codes.Code {
	switch status {
	case 400:
		return codes.Internal
	case 401:
		return codes.Unauthenticated
	case 403:
		return codes.PermissionDenied
	case 404:
		return codes.Unimplemented
	case 409:
		return codes.Aborted
	case 429:
		return codes.ResourceExhausted
	case 500:
		return codes.Internal
	case 502, 503, 504:
		return codes.Unavailable
	}
	if status >= 200 && status < 300 {
		return codes.OK
	}
	return codes.Unknown
}

// Status is the HTTP status that stands for status code c in herdbench's
// records of a gRPC call (a recording's status, an attempt's label), the
// one reading of a code for the target and the clients alike:
//
//	OK                  200
//	RESOURCE_EXHAUSTED  429: pushback, overload
//	INVALID_ARGUMENT, NOT_FOUND, ALREADY_EXISTS, PERMISSION_DENIED,
//	FAILED_PRECONDITION, OUT_OF_RANGE, UNAUTHENTICATED, UNIMPLEMENTED
//	                    400: the caller's mistakes
//	UNAVAILABLE         503
//	DEADLINE_EXCEEDED   504
//	CANCELLED           0: the caller gave up, nothing answered
//	any other           500: the server's other failures (INTERNAL,
//	                    UNKNOWN, ABORTED, ...)
//
// A client that gave up at its deadline has no answer either: it
// records DEADLINE_EXCEEDED as a timeout, without a status
// (clients.GRPCOutcome).
func Status(c codes.Code) int {
	switch c {
	case codes.OK:
		return 200
	case codes.ResourceExhausted:
		return 429
	case codes.InvalidArgument, codes.NotFound, codes.AlreadyExists, codes.PermissionDenied,
		codes.FailedPrecondition, codes.OutOfRange, codes.Unauthenticated, codes.Unimplemented:
		return 400
	case codes.Unavailable:
		return 503
	case codes.DeadlineExceeded:
		return 504
	case codes.Canceled:
		return 0
	}
	return 500
}
