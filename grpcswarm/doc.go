// Package grpcswarm is the real-time swarm over gRPC: one cohort's clients
// calling a unary method on channels of google.golang.org/grpc, in two
// kinds.
//
// A cohort of herdbench's own strategies runs the client step function
// (clients.Client) on the wall clock exactly as the HTTP swarm does, each
// attempt one call on a channel with grpc-go's retries off
// (grpc.WithDisableRetry), its attempt number sent as grpc-go's retry sends
// it (grpc-previous-rpc-attempts), a grpc-retry-pushback-ms trailer taken as
// the server's pushback. A grpc-go cohort (clients.Strategy.GRPC)
// dials its channels with that service config and lets grpc-go's retry and
// throttling decide: each logical request is one call, and herdbench
// records every attempt grpc-go makes from a stats handler on the channel
// (stats.Begin to stats.End), numbered as the target numbers them.
//
// Channels are shared as services share them: Swarm.Shared clients on
// each channel (0: one channel per client), as HTTP/2's shared
// connections (connections: shared: K, the same key). The engine runs this swarm for a target whose protocol is grpc.
package grpcswarm
