// Package grpcraw is herdbench's gRPC on grpc-go's own HTTP/2: the raw
// codec that carries any message as its bytes (so the target, the swarm and
// the proxy serve and call any method without generated code), the attempt
// number as grpc-go's retry sends it in the call's metadata
// (grpc-previous-rpc-attempts), and grpc-go's own check of a service config.
//
// It is the wire side of package grpcwire, which holds what the model reads
// of gRPC (status codes, the pushback's form, method names) and imports no
// transport. The target (package target), the swarm's gRPC transport
// (clients/swarm), the chaos proxy and herdtest import it.
package grpcraw
