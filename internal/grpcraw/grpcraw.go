package grpcraw

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/metadata"

	"github.com/herdbench/herdbench/grpcwire"
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
	return nil, fmt.Errorf("grpcraw: cannot marshal %T: the raw codec carries []byte", v)
}

// Unmarshal implements encoding.Codec.
func (Codec) Unmarshal(data []byte, v any) error {
	m, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("grpcraw: cannot unmarshal into %T: the raw codec fills *[]byte", v)
	}
	*m = append((*m)[:0], data...)
	return nil
}

// Name implements encoding.Codec.
func (Codec) Name() string { return "proto" }

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

// Attempt returns the attempt number of a call from its incoming
// metadata: grpc-previous-rpc-attempts + 1, or 1 without it. ok is false
// when the value is not a whole number.
func Attempt(md metadata.MD) (n int, ok bool) {
	v := md.Get(grpcwire.PreviousAttempts)
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
	return metadata.AppendToOutgoingContext(ctx, grpcwire.PreviousAttempts, strconv.Itoa(n-1))
}
