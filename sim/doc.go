// Package sim is the virtual-time engine: a deterministic discrete-event
// simulation of one cohort, in a single goroutine, with an event heap.
//
// It drives the same code as the real-time engine, unchanged: each client
// is a clients.Client step function (Begin, Result), the target is a
// model.Model (Hop, Ingress, Arrive, Finish, Expire, Abandon, Crash), the
// chaos plan is the same chaos.Plan, and everything is recorded through a
// results.Recorder, so the same metrics come out. Only the driver differs:
// where the real engine sleeps, the simulator schedules an event.
//
// What happens to one attempt, in both engines:
//   - At the send time, a target that is refusing connections (a refuse
//     outage) fails the attempt at once (refused).
//   - The request travels one network hop (Model.Hop), then meets the chaos
//     plan (Model.Ingress): an immediate error status, a reset, a blackhole
//     (the request hangs until the client's timeout or a crash), or an added
//     latency, after which it enters the capacity model (Model.Arrive):
//     served now, queued until a slot frees or its queue deadline passes
//     (503), or rejected because the queue is full (503).
//   - Every answer is a chaos.Answer the model produces (Model.Ingress,
//     Overloaded, Served, and Relayed at a middle tier), and the simulator
//     applies each in one function (Sim.answer), as the real server's
//     exchange.answer writes it: the same verdicts, statuses, Retry-After,
//     delays, hangs, resets and truncated bodies, at every tier.
//   - A served job's op takes effect when its service ends (Model.Finish):
//     on an OCC target, a read returns the version; the client then writes
//     it back (one more round trip in the same attempt) and the write
//     succeeds or conflicts (http_4xx).
//   - The answer travels one hop back; resets are seen at once.
//   - The client's per-attempt timeout abandons the attempt wherever it is
//     (Model.Abandon for a job inside the target). A grpc-go cohort's
//     timeout is the RPC's deadline, over all its attempts
//     (Client.Deadline).
//   - A grpc-go cohort (clients.Strategy.GRPC) reads the answer as gRPC:
//     its status as a gRPC code (clients.GRPCReplyCode: 503 UNAVAILABLE,
//     429 RESOURCE_EXHAUSTED, a reset or refused connection UNAVAILABLE,
//     its deadline DEADLINE_EXCEEDED) and the answer's pushback
//     (chaos.Answer.Pushback, or its Retry-After) as
//     grpc-retry-pushback-ms; the simulator hands it the status and the
//     pushback, and grpc-go's rules decide (docs/grpc.md). Over gRPC
//     every cohort records an answer by its code, as the real swarm does
//     (clients.GRPCOutcome: a 400 is INTERNAL, an http_5xx).
//   - When a reset or refuse outage begins, the target crashes
//     (Model.Crash): every attempt in flight, wherever it is (in a hop,
//     hung, delayed, queued or in service), is reset.
//   - A strategy with transport: net/http re-sends, at once and once, an
//     attempt reset before its answer (a crash, a reset answer) on a
//     reused connection (its last attempt was answered and no crash has
//     closed it since), as net/http does and the swarm with that transport
//     does (clients.Transport); the strategy sees only the re-send's end.
//   - A hedging strategy's client (clients.Hedge) sends each attempt from a
//     slot of its own (hedge.go), so that several are in flight at once:
//     an attempt still unanswered at its action's Hedge time is joined by
//     the client's hedge, as the real driver sends it; every attempt's
//     reply goes to the client as it comes, those of a request already
//     ended recorded and nothing more.
//
// Determinism: events are ordered by time, then by the order in which they
// were scheduled (first in, first out), and every random draw comes from a
// stream seeded by (seed, id) (seeds.Stream): the client's own for think
// times and backoff, the target's for service times, hops and error rates.
// The same cohort and seed give the same records, bit for bit.
//
// Snapshots (snapshot.go): RunPaused hands out, at instants of a run, a
// deep copy of the simulator's whole state, and Snapshot.Continue runs a
// copy of it to the end, as it was (byte for byte the run never paused) or
// varied: with fresh randomness (every stream reseeded under a new seed)
// and without the faults from that instant on. The cliff search's point of
// no return continues a collapsing run's snapshots many times.
//
// Cost: what an event touches of a client sits in one 192-byte slot (three
// cache lines) of a chunked slab, what only some runs use in cold chunks
// beside it; events are 16-byte values in a radix heap (simulated time
// never goes back). With a million clients each event's client is a cache
// miss, so the event loop hides the misses: when the queue turns a small
// bucket into the next events to come (queue.soon), the loop prefetches
// those events' clients into the cache at once (prefetchClient), and their
// misses overlap while it handles the events before them; the order of
// events is untouched. The chunks of the slab (16,384 clients, 3 MB) are
// advised onto huge pages (Linux), so that a client at random costs no
// page walk either. The
// target's jobs are recycled through Model.Release, so the event loop
// allocates nothing per event. A Sim keeps its buffers between runs: a
// worker reuses one Sim for many repetitions.
package sim
