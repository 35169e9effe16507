package proxy

//lint:file-ignore SA1019 golang.org/x/net/http2 marks its transport deprecated in favour of net/http's own HTTP/2 (Go 1.26); herdbench's HTTP/2 is x/net's throughout.

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/http2"

	"github.com/herdbench/herdbench/internal/wire"
)

// h2Upstream is the transport to an upstream that speaks HTTP/2: over TLS
// (h2, ALPN, the system's roots) or cleartext with prior knowledge (h2c).
// It multiplexes every forwarded request over as few connections as the
// upstream's stream limit allows.
func h2Upstream(p wire.Protocol) http.RoundTripper {
	d := &net.Dialer{Timeout: 5 * time.Second}
	t := &http2.Transport{DisableCompression: true}
	if p == wire.H2C {
		t.AllowHTTP = true
		t.DialTLSContext = func(ctx context.Context, network, addr string, _ *tls.Config) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		}
	}
	return t
}
