// Command grpcgreeter is a fleet of grpc-go's own helloworld greeter
// clients (the examples module's generated Greeter client, called as its
// greeter_client calls it), each unit of work one SayHello, retried by
// grpc-go's own retry from a service config: the gRPC game-day rehearsal
// (docs/grpc.md). It sends to one address for a bounded time and stops by
// itself. The greeter server it calls is that module's greeter_server, run
// with `go tool greeter_server`.
//
//	grpcgreeter -addr 127.0.0.1:8090 -clients 50 -channels 5 -for 12s
package main

import (
	"context"
	"flag"
	"fmt"
	"log"
	"math/rand/v2"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	pb "google.golang.org/grpc/examples/helloworld/helloworld"
)

// defaultServiceConfig is grpc-go's retry as its documentation writes a
// retry policy (examples/features/retry), for the Greeter, with waits long
// enough to see: 1 s × 2^(n−1), capped at 2 s, times U(0.8, 1.2), 5
// attempts, UNAVAILABLE retried.
const defaultServiceConfig = `{
  "methodConfig": [{
    "name": [{"service": "helloworld.Greeter"}],
    "retryPolicy": {
      "maxAttempts": 5,
      "initialBackoff": "1s",
      "maxBackoff": "2s",
      "backoffMultiplier": 2,
      "retryableStatusCodes": ["UNAVAILABLE"]
    }
  }]
}`

func main() {
	addr := flag.String("addr", "127.0.0.1:50051", "the greeter's address (127.0.0.1 only)")
	clients := flag.Int("clients", 50, "clients, each one SayHello after another")
	channels := flag.Int("channels", 5, "channels the clients share")
	run := flag.Duration("for", 10*time.Second, "how long the fleet sends")
	think := flag.Duration("think", 200*time.Millisecond, "the mean wait between a client's calls (exponential)")
	timeout := flag.Duration("timeout", 10*time.Second, "each call's deadline (all its attempts)")
	ua := flag.String("user-agent", "greeter-fleet", "the clients' user agent (the proxy's cohort)")
	sc := flag.String("service-config", defaultServiceConfig, "grpc-go's service config")
	flag.Parse()
	if *clients < 1 || *clients > 10000 || *channels < 1 || *run <= 0 || *run > 10*time.Minute {
		log.Fatal("grpcgreeter: give 1 to 10000 clients, 1 or more channels, and a run of at most 10m")
	}
	conns := make([]*grpc.ClientConn, *channels)
	for i := range conns {
		cc, err := grpc.NewClient(*addr,
			grpc.WithTransportCredentials(insecure.NewCredentials()),
			grpc.WithUserAgent(*ua),
			grpc.WithDefaultServiceConfig(*sc))
		if err != nil {
			log.Fatalf("grpcgreeter: %v", err)
		}
		defer cc.Close()
		conns[i] = cc
	}
	until := time.Now().Add(*run)
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for i := range *clients {
		c := pb.NewGreeterClient(conns[i%len(conns)])
		rng := rand.New(rand.NewPCG(uint64(i), 7))
		wg.Go(func() {
			for {
				time.Sleep(time.Duration(rng.ExpFloat64() * float64(*think)))
				if time.Now().After(until) {
					return
				}
				ctx, cancel := context.WithTimeout(context.Background(), *timeout)
				_, err := c.SayHello(ctx, &pb.HelloRequest{Name: fmt.Sprintf("client-%d", i)})
				cancel()
				if err != nil {
					failed.Add(1)
				} else {
					ok.Add(1)
				}
			}
		})
	}
	wg.Wait()
	fmt.Fprintf(os.Stdout, "grpcgreeter: %d calls succeeded, %d failed\n", ok.Load(), failed.Load())
}
