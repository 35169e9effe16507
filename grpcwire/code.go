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
