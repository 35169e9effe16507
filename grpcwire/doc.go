// Package grpcwire is what herdbench's gRPC pieces share on the wire: the
// raw codec that carries any message as its bytes (so the target, the swarm
// and the proxy serve and call any method without generated code), the
// target's default method and the check of a method name, the metadata
// keys (grpc-previous-rpc-attempts, grpc-retry-pushback-ms), the pushback
// trailer's encoding, and the check of a grpc-go service config by
// grpc-go's own parser.
//
// The target (package target), the gRPC swarm (package grpcswarm) and the
// chaos proxy (package proxy) import it; it imports no other herdbench
// package. docs/grpc.md describes the wire.
package grpcwire
