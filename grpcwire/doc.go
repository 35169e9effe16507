// Package grpcwire is what herdbench knows of gRPC's wire without speaking
// it: the target's default method and the check of a method name, the
// metadata keys of gRPC's retry design (grpc-previous-rpc-attempts,
// grpc-retry-pushback-ms) and the pushback trailer's encoding, the gRPC
// status code of each HTTP status the target's model answers with (Code),
// and the HTTP status that stands for each code in herdbench's records
// (Status).
//
// It imports no transport (only grpc-go's codes), so the model reads it: the
// client step function and the simulator decide grpc-go's retries with the
// code the target sends. The wire side, on grpc-go's HTTP/2 (the raw codec,
// the attempt metadata, grpc-go's check of a service config), is
// internal/grpcraw. docs/grpc.md describes the wire.
package grpcwire
