// Package grpcwire is what herdbench's gRPC pieces share on the wire: the
// raw codec that carries any message as its bytes (so the target, the swarm
// and the proxy serve and call any method without generated code), the
// target's default method and the check of a method name, the metadata
// keys (grpc-previous-rpc-attempts, grpc-retry-pushback-ms), the pushback
// trailer's encoding, the check of a grpc-go service config by grpc-go's
// own parser, the gRPC status code of each HTTP status the target's model
// answers with (Code), and the HTTP status that stands for each code in
// herdbench's records (Status).
//
// The target (package target), the gRPC swarm (package grpcswarm), the
// chaos proxy (package proxy) and the client model (package clients, whose
// GRPCCode the simulator reads) import it; it imports no other herdbench
// package. docs/grpc.md describes the wire.
package grpcwire
