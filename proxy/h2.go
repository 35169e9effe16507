package proxy

import (
	"net"
	"net/http"
	"time"

	"github.com/herdbench/herdbench/internal/wire"
)

// h2Upstream is the transport to an upstream that speaks HTTP/2: over TLS
// (h2, ALPN, the system's roots) or cleartext with prior knowledge (h2c).
// It multiplexes every forwarded request over as few connections as the
// upstream's stream limit allows. It is net/http's Transport with HTTP/2
// alone in its Protocols (x/net's http2.Transport, which the proxy used
// before, is deprecated for it): never through an environment proxy, no
// gzip asked for, connections dialled within 5 s.
//
// MaxConnsPerHost 1 keeps x/net's pooling: for HTTP/2 net/http counts only
// the connection that takes new streams (one whose streams are all taken
// leaves the count), so a wave of requests waits for one dial and shares
// its connection, and another is dialled only when that one is full.
// Without it, every request that finds no connection ready dials its own
// (20 at once to an idle upstream: 4 to 20 connections instead of 1).
func h2Upstream(p wire.Protocol) http.RoundTripper {
	protocols := new(http.Protocols)
	if p == wire.H2C {
		protocols.SetUnencryptedHTTP2(true)
	} else {
		protocols.SetHTTP2(true)
	}
	return &http.Transport{
		Proxy:              nil, // the upstream is the only destination
		DialContext:        (&net.Dialer{Timeout: 5 * time.Second}).DialContext,
		DisableCompression: true,
		MaxConnsPerHost:    1,
		Protocols:          protocols,
	}
}
