package proxy

import (
	"crypto/tls"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/wire"
)

// TestH2Upstream: the transport to an HTTP/2 upstream is net/http's (x/net's
// http2.Transport is deprecated for it), and behaves as the proxy needs: over
// h2c (prior knowledge) and over TLS (ALPN h2) every request is HTTP/2, asks
// no gzip, and 20 requests in flight at once share one connection; a TLS
// upstream that does not speak h2 is refused, not spoken to in HTTP/1.1.
func TestH2Upstream(t *testing.T) {
	for _, p := range []wire.Protocol{wire.H2C, wire.H2} {
		t.Run(p.String(), func(t *testing.T) {
			rt, ok := h2Upstream(p).(*http.Transport)
			if !ok {
				t.Fatalf("h2Upstream(%s) is a %T, want net/http's *http.Transport", p, h2Upstream(p))
			}
			t.Cleanup(rt.CloseIdleConnections)
			const n = 20
			var conns, in atomic.Int32
			all := make(chan struct{}) // closed when every request is in flight at once
			up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if in.Add(1) == n {
					close(all)
				}
				select {
				case <-all:
				case <-r.Context().Done():
					return
				}
				if r.ProtoMajor != 2 || r.Header.Get("Accept-Encoding") != "" {
					w.WriteHeader(http.StatusTeapot)
				}
				_, _ = io.WriteString(w, r.Proto)
			}))
			up.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					conns.Add(1)
				}
			}
			if p == wire.H2C {
				up.Config.Protocols = new(http.Protocols)
				up.Config.Protocols.SetUnencryptedHTTP2(true)
				up.Start()
			} else {
				up.EnableHTTP2 = true
				up.StartTLS()
				rt.TLSClientConfig = &tls.Config{RootCAs: up.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
			}
			t.Cleanup(up.Close)
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for range n {
				wg.Go(func() {
					resp, err := (&http.Client{Transport: rt, Timeout: 10 * time.Second}).Get(up.URL)
					if err != nil {
						errs <- err
						return
					}
					_, _ = io.Copy(io.Discard, resp.Body)
					_ = resp.Body.Close()
					if resp.StatusCode != http.StatusOK || resp.ProtoMajor != 2 {
						t.Errorf("%s %d: want HTTP/2 200, without Accept-Encoding", resp.Proto, resp.StatusCode)
					}
				})
			}
			wg.Wait()
			close(errs)
			for err := range errs {
				t.Error(err)
			}
			if c := conns.Load(); c != 1 {
				t.Errorf("%d requests at once took %d connections, want 1", n, c)
			}
		})
	}
	t.Run("h2 to an HTTP/1.1-only TLS upstream", func(t *testing.T) {
		up := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
		up.Config.ErrorLog = log.New(io.Discard, "", 0) // its refusal of the handshake, expected
		up.StartTLS()
		t.Cleanup(up.Close)
		rt, ok := h2Upstream(wire.H2).(*http.Transport)
		if !ok {
			t.Fatalf("h2Upstream(h2) is a %T, want net/http's *http.Transport", h2Upstream(wire.H2))
		}
		t.Cleanup(rt.CloseIdleConnections)
		rt.TLSClientConfig = &tls.Config{RootCAs: up.Client().Transport.(*http.Transport).TLSClientConfig.RootCAs}
		if resp, err := (&http.Client{Transport: rt}).Get(up.URL); err == nil {
			_ = resp.Body.Close()
			t.Errorf("an upstream without h2 answered %s; want the connection refused", resp.Proto)
		}
	})
}
