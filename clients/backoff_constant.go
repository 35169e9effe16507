package clients

import "time"

// Constant waits base every time.
var Constant = RegisterShape(ShapeKind{Name: "constant", Summary: "base, every time",
	Next: func(b Backoff, _ int, _ time.Duration, _ float64) time.Duration { return b.Base }})
