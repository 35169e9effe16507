// Package swarm is the clients in real time: the client step function
// (clients.Client) driven on the wall clock by the one real-time driver
// (Driver: the swarm's, a middle tier's calls' and the retrying proxy's),
// a goroutine per client, over a transport per wire, each supplying only
// how to send an attempt (a Sender). A hedging client's attempts go out
// each in a goroutine of its own, several in flight at once (hedge.go).
//
// Over HTTP/1.1 and HTTP/2 (Swarm) it speaks herdbench's own HTTP
// (internal/httpwire): each closed-loop client has its own connection (or
// a stream on one that K clients share over HTTP/2), opened before its
// first send, on which its goroutine writes each request (bytes prepared
// once per swarm) and reads the answer, with the attempt's timeout as a
// read deadline. An attempt's send time is taken right before its write (or
// its dial), so the timeline shows when attempts were on the wire. Nothing
// is retried behind the client's back, but a request whose write fails at
// once on a connection that died while idle is written again on a new one,
// as net/http does: nothing of it reached the target. docs/performance.md
// has the figures. A middle tier of a chain calls the next one through a
// Relay: the same step function, one fresh client per call.
//
// Over gRPC (GRPCSwarm) a cohort calls a unary method on channels of
// google.golang.org/grpc, in two kinds. A cohort of herdbench's own
// strategies runs the step function exactly as over HTTP, each attempt one
// call on a channel with grpc-go's retries off (grpc.WithDisableRetry), its
// attempt number sent as grpc-go's retry sends it
// (grpc-previous-rpc-attempts), a grpc-retry-pushback-ms trailer taken as
// the server's pushback. A grpc-go cohort (clients.Strategy.GRPC) dials its
// channels with that service config and lets grpc-go's retry and
// throttling decide: each logical request is one call, and herdbench
// records every attempt grpc-go makes from a stats handler on the channel
// (stats.Begin to stats.End), numbered as the target numbers them. Channels
// are shared as services share them: Shared clients on each channel (0:
// one channel per client), as HTTP/2's shared connections.
package swarm
