package grpcwire

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"
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

// Codec carries a message as its bytes: a *[]byte or []byte is written as
// it is, and a message read fills a *[]byte. It is registered under the
// name "proto", so what goes on the wire is exactly what a protobuf client
// or server sends (application/grpc+proto), and it is forced on every
// channel and server herdbench makes (grpc.ForceCodec, ForceServerCodec),
// never installed globally.
type Codec struct{}

var _ encoding.Codec = Codec{}

// Marshal implements encoding.Codec.
func (Codec) Marshal(v any) ([]byte, error) {
	switch m := v.(type) {
	case *[]byte:
		return *m, nil
	case []byte:
		return m, nil
	case nil:
		return nil, nil
	}
	return nil, fmt.Errorf("grpcwire: cannot marshal %T: the raw codec carries []byte", v)
}

// Unmarshal implements encoding.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("grpcwire: cannot unmarshal into %T: the raw codec fills *[]byte", v)
	}
	*m = append((*m)[:0], data...)
	return nil
}

// Name implements encoding.Codec.
func (Codec) Name() string { return "proto" }

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

// CheckServiceConfig parses js with grpc-go's own service config parser
// (the one grpc.WithDefaultServiceConfig uses) and returns its message when
// grpc-go rejects it. Nothing is dialled.
func CheckServiceConfig(js string) error {
	if strings.TrimSpace(js) == "" {
		return errors.New("the service config is empty; write grpc-go's JSON, e.g. {\"methodConfig\": [{\"name\": [{}], \"retryPolicy\": {...}}]}")
	}
	cc, err := grpc.NewClient("passthrough:///herdbench-check",
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultServiceConfig(js))
	if err != nil {
		return err
	}
	return cc.Close()
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

// Attempt returns the attempt number of a call from its incoming
// metadata: grpc-previous-rpc-attempts + 1, or 1 without it. ok is false
// when the value is not a whole number.
func Attempt(md metadata.MD) (n int, ok bool) {
	v := md.Get(PreviousAttempts)
	if len(v) == 0 {
		return 1, true
	}
	p, err := strconv.Atoi(v[0])
	if err != nil || p < 0 {
		return 0, false
	}
	return p + 1, true
}

// WithAttempt returns ctx carrying attempt n's grpc-previous-rpc-attempts
// (none for the first), as grpc-go's retry sends it.
func WithAttempt(ctx context.Context, n int) context.Context {
	if n <= 1 {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, PreviousAttempts, strconv.Itoa(n-1))
}
