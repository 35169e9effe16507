package model

// Protocol is the wire a target (or the proxy) speaks.
type Protocol uint8

// Protocols.
const (
	HTTP1 Protocol = iota // HTTP/1.1 (the default)
	GRPC                  // gRPC: any unary method, the raw codec (grpc.go)
)

var protocolNames = [...]string{HTTP1: "http", GRPC: "grpc"}

// String returns the protocol's name as a scenario writes it.
func (p Protocol) String() string {
	if int(p) < len(protocolNames) {
		return protocolNames[p]
	}
	return "Protocol(?)"
}
