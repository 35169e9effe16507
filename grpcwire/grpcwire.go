package grpcwire

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Method is the target's method when a scenario names none: any method is
// served (the raw codec takes any message), and this is the one the swarm
// calls. Its request and response are empty messages.
const Method = "/herdbench.Target/Call"

// Metadata keys of gRPC's retry design (gRFC A6).
const (
	// PreviousAttempts is sent by a retrying client with every retry: the
	// number of attempts before this one. herdbench's swarm sends it as
	// grpc-go does, so the target and the proxy number attempts alike.
	PreviousAttempts = "grpc-previous-rpc-attempts"
	// Pushback is the server's trailer asking the client to wait that many
	// milliseconds before its retry; a negative or unparsable value asks it
	// not to retry at all.
	Pushback = "grpc-retry-pushback-ms"
)

// CheckMethod returns an error unless m is a full gRPC method name,
// /package.Service/Method.
func CheckMethod(m string) error {
	bad := func() error {
		return fmt.Errorf("%q is not a gRPC method name; write /package.Service/Method, e.g. %s or /helloworld.Greeter/SayHello", m, Method)
	}
	rest, ok := strings.CutPrefix(m, "/")
	if !ok {
		return bad()
	}
	svc, meth, ok := strings.Cut(rest, "/")
	if !ok || meth == "" || strings.ContainsAny(meth, "/. ") || svc == "" {
		return bad()
	}
	i := strings.LastIndexByte(svc, '.')
	if i <= 0 || i == len(svc)-1 || strings.ContainsAny(svc, " ") || strings.HasPrefix(svc, ".") || strings.Contains(svc, "..") {
		return bad()
	}
	return nil
}

// PushbackValue is the grpc-retry-pushback-ms trailer's value for a wait
// d: whole milliseconds, rounded up (a wait under 1 ms is still one), or
// "-1" for a negative d, the form that tells the client not to retry.
func PushbackValue(d time.Duration) string {
	if d < 0 {
		return "-1"
	}
	ms := (d + time.Millisecond - 1) / time.Millisecond
	return strconv.FormatInt(int64(ms), 10)
}

// ParsePushback reads a grpc-retry-pushback-ms value as gRFC A6 does: a
// non-negative whole number of milliseconds is a wait (ok); anything else
// (negative, not a number) says "do not retry" (stop).
func ParsePushback(v string) (wait time.Duration, stop bool) {
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 {
		return 0, true
	}
	if n > math.MaxInt64/int64(time.Millisecond) {
		n = math.MaxInt64 / int64(time.Millisecond)
	}
	return time.Duration(n) * time.Millisecond, false
}
