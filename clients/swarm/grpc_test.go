package swarm

import (
	"context"
	"net"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// TestSharedChannels: Shared clients share each channel, one connection
// each, opened before t = 0; with 0, each client has its own. Every call
// is recorded once, with attempt number 1.
func TestSharedChannels(t *testing.T) {
	for _, c := range []struct{ shared, clients, want int }{{3, 10, 4}, {0, 4, 4}, {1, 4, 4}, {50, 4, 1}} {
		synctest.Test(t, func(t *testing.T) {
			n := &memnet.Network{}
			srv, err := target.Listen(target.Options{Addr: "target:80", Listen: n.Listen,
				Config: model.Config{Protocol: model.GRPC, Concurrency: 100, Queue: 100, QueueTimeout: time.Second, ServiceTime: dist.Const(10 * time.Millisecond)}})
			if err != nil {
				t.Fatal(err)
			}
			defer srv.Close()
			var dials atomic.Int64
			rec := results.NewRecorder(time.Second, 1)
			s := &Swarm{URL: "http://target:80", GRPC: true, Shared: c.shared,
				Strategy: &clients.Strategy{Name: "s", MaxAttempts: 1, Timeout: time.Second},
				Workload: &clients.Workload{Kind: clients.Closed, Clients: c.clients, Think: dist.Const(90 * time.Millisecond)},
				Origin:   time.Now().Add(100 * time.Millisecond), Duration: time.Second, Rec: rec,
				Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
					dials.Add(1)
					return n.Dial(ctx, network, addr)
				}}
			s.Run(context.Background())
			if got := dials.Load(); got != int64(c.want) {
				t.Errorf("%d clients, %d a channel: %d connections; want %d", c.clients, c.shared, got, c.want)
			}
			// Each client: think 90ms, a 10ms call, so ten calls in the second.
			tl := rec.Timeline(results.Bucket)
			var ok, first int64
			for _, row := range tl.Rows {
				ok += row[results.OK]
				first += row[results.SeriesFirst]
			}
			if want := int64(10 * c.clients); ok < want-int64(c.clients) || ok > want || first != ok {
				t.Errorf("%d clients: %d calls ok, %d numbered first; want about %d, all first", c.clients, ok, first, want)
			}
		})
	}
}
