package clients

import "time"

// GRPC draws v(n-1) * U(0.8, 1.2): gRFC A6 (revised 2024) and grpc-go's
// stream.go, the first retry after about base.
var GRPC = RegisterShape(ShapeKind{Name: "grpc", Summary: "v(n−1)·U(0.8, 1.2): gRFC A6 (revised 2024) and grpc-go's stream.go, the first retry after about base",
	Next: func(b Backoff, n int, _ time.Duration, u float64) time.Duration {
		return time.Duration((0.8 + 0.4*u) * float64(b.Ceiling(n-1)))
	}})
