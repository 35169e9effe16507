package swarm

import (
	"context"
	"sync/atomic"
	"time"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/internal/httpwire"
	"github.com/herdbench/herdbench/internal/slowmo"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/seeds"
)

// Relay is the calls that a middle tier of a chain of tiers makes to the
// next tier, in real time: every request the tier serves makes one call
// (Call), a fresh client of the tier's strategy, as an open workload's
// arrival is, run by the Driver. Its attempts go on herdbench's own HTTP
// client over a pool of connections to the next tier, and are recorded as
// the simulator records a tier's calls. It is safe for concurrent use: a
// tier's handlers call it at once.
type Relay struct {
	o      RelayOptions
	d      Driver
	cohort *clients.Cohort
	pool   *httpwire.Pool
	work   clients.Workload
	att    httpwire.Attempts
	n      atomic.Int64
}

// RelayOptions configure a Relay.
type RelayOptions struct {
	URL      string            // the next tier, e.g. http://127.0.0.1:8081/
	Strategy *clients.Strategy // how the tier retries its calls
	// Tier is the calling tier's place in the chain, from 0: with the run's
	// seed, it gives each call its random stream (seeds.Call).
	Tier     int
	Seed     uint64
	Origin   time.Time     // the run's t = 0
	Duration time.Duration // no attempt is sent at or after it
	Rec      *results.Recorder
	// Dial opens connections; nil means the host's TCP stack.
	Dial DialFunc
	// Slow runs the tier's calls in slow motion, as the swarm's
	// (Swarm.Slow): the tier's server must be slowed by the same factor.
	Slow slowmo.Factor
}

// NewRelay returns the relay of o.
func NewRelay(o RelayOptions) (*Relay, error) {
	ep, err := httpwire.NewEndpoint(o.URL, o.Dial, nil)
	if err != nil {
		return nil, err
	}
	return &Relay{
		o:      o,
		d:      Driver{Origin: o.Origin, Slow: o.Slow},
		cohort: clients.NewCohort(o.Strategy),
		pool:   httpwire.NewPool(ep, &httpwire.LinkSet{}),
		work:   clients.Workload{Kind: clients.OneShot},
		att:    httpwire.Attempts{Origin: o.Origin, Slow: o.Slow, Timeout: o.Strategy.Timeout},
	}, nil
}

// Call makes one call to the next tier: a request with the strategy's
// retries, until it succeeds, gives up, or ctx ends. It reports whether
// it succeeded. When ctx ends first (the tier's own caller went away, or
// the tier crashed), the call is cancelled: its attempt in flight is cut
// and recorded as a timeout, the request as failed (Client.Cancel), as
// the simulator records a cancelled call; at the run's end nothing more is
// recorded, as the swarm records nothing an end cuts.
func (r *Relay) Call(ctx context.Context) bool {
	n := int(r.n.Add(1) - 1)
	sh := r.o.Rec.Shard(n)
	c := r.cohort.NewClient(n, &r.work, r.o.Duration, seeds.Stream(r.o.Seed, seeds.Call(r.o.Tier, n)), sh)
	e := r.d.Drive(ctx, c, c.BeginAt(r.elapsed()), relaySender{r}, sh)
	if e.Cut {
		r.cancel(c, e.InFlight, e.Sent)
		return false
	}
	if c.Unfinished() {
		// Its next attempt would come after the run's end: the call waits
		// for the end (or for its caller to go), answering nothing.
		var wake Alarm
		defer wake.Stop()
		if !wake.SleepUntil(ctx, r.d.Slow.At(r.d.Origin, r.o.Duration)) {
			r.cancel(c, false, 0)
		}
		return false
	}
	return e.OK
}

// relaySender sends a call's attempts, each on a link of the pool; a link
// whose exchange ctx's end cut is spent.
type relaySender struct{ r *Relay }

func (s relaySender) Send(ctx context.Context, _ Attempt) (clients.Reply, *clients.Reply, bool) {
	r := s.r
	l := r.pool.Get()
	stop := context.AfterFunc(ctx, l.Abort)
	sent, end, o, status, pushback, _ := r.att.Send(ctx, l, nil) // a tier's calls use herdbench's transport: never re-sent
	if stop() {
		r.pool.Put(l)
	} else {
		r.pool.Drop(l) // cut by ctx's end: it is spent
	}
	return clients.Reply{Sent: sent, Latency: end - sent, Outcome: o, RetryAfter: pushback, Status: status}, nil, false
}

// cancel ends c's request now, unless the run has ended.
func (r *Relay) cancel(c *clients.Client, inFlight bool, sent time.Duration) {
	if now := r.elapsed(); now < r.o.Duration {
		c.Cancel(now, inFlight, sent)
	}
}

func (r *Relay) elapsed() time.Duration { return r.d.Slow.Since(r.d.Origin) }

// Close closes the relay's connections. Call it once the tier's server is
// closed: no call is in flight then.
func (r *Relay) Close() { r.pool.Close() }
