package libraries

import (
	"context"
	"time"

	"google.golang.org/grpc"
	pb "google.golang.org/grpc/examples/features/proto/echo"

	"github.com/herdbench/herdbench/herdtest"
)

// ExampleRetryPolicy is the service config of grpc-go's
// examples/features/retry client (examples/features/retry/client/main.go,
// at the examples module go.mod pins), exactly as it ships: 4 attempts,
// 10 ms apart, on UNAVAILABLE, for the Echo service.
const ExampleRetryPolicy = `{
		"methodConfig": [{
		  "name": [{"service": "grpc.examples.echo.Echo"}],
		  "retryPolicy": {
			  "MaxAttempts": 4,
			  "InitialBackoff": ".01s",
			  "MaxBackoff": ".01s",
			  "BackoffMultiplier": 1.0,
			  "RetryableStatusCodes": [ "UNAVAILABLE" ]
		  }
		}]}`

// A6RetryPolicy is the design the grpc preset names (clients/presets.go):
// gRFC A6's example retry policy (4 attempts, 0.1 s initial backoff, 1 s
// max, multiplier 2, UNAVAILABLE) and its retry throttling (10 tokens,
// ratio 0.1), as a grpc-go service config.
const A6RetryPolicy = `{"methodConfig": [{"name": [{"service": "grpc.examples.echo.Echo"}],
  "retryPolicy": {"maxAttempts": 4, "initialBackoff": "0.1s", "maxBackoff": "1s",
    "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}],
 "retryThrottling": {"maxTokens": 10, "tokenRatio": 0.1}}`

// GRPCGoExample is grpc-go's service-config retries with its
// examples/features/retry policy: the example's own client code, a
// channel per client (grpc.NewClient with WithDefaultServiceConfig; its
// insecure credentials are herdtest's too), one UnaryEcho RPC a request
// through the generated Echo client, every attempt within the RPC's
// deadline (timeout: grpc-go's deadline covers the RPC, its attempts and
// its waits; the example sets 1 s).
func GRPCGoExample(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return grpcGo(ExampleRetryPolicy, timeout)
}

// GRPCGoA6 is grpc-go's service-config retries with A6RetryPolicy, the
// grpc preset's design: a channel per client, so a throttler per client,
// as the preset's budget is per client.
func GRPCGoA6(timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return grpcGo(A6RetryPolicy, timeout)
}

func grpcGo(serviceConfig string, timeout time.Duration) func(c *herdtest.Client) herdtest.RequestFunc {
	return grpcGoWith(serviceConfig, timeout)
}

// grpcGoWith is grpcGo with more dial options.
func grpcGoWith(serviceConfig string, timeout time.Duration, opts ...grpc.DialOption) func(c *herdtest.Client) herdtest.RequestFunc {
	return func(c *herdtest.Client) herdtest.RequestFunc {
		cc, err := c.DialGRPC(append([]grpc.DialOption{grpc.WithDefaultServiceConfig(serviceConfig)}, opts...)...)
		if err != nil {
			panic(err) // a service config grpc-go refuses: the cohort's failure, reported
		}
		echo := pb.NewEchoClient(cc)
		return func(ctx context.Context) error {
			ctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			_, err := echo.UnaryEcho(ctx, &pb.EchoRequest{Message: "Try and Success"})
			return err
		}
	}
}
