package wire

import (
	"crypto/tls"
	"net"
	"testing"
)

func TestParse(t *testing.T) {
	for in, want := range map[string]Protocol{"": HTTP1, "http1": HTTP1, "h2": H2, "h2c": H2C} {
		got, err := Parse(in)
		if err != nil || got != want {
			t.Errorf("Parse(%q) = %v, %v; want %v", in, got, err, want)
		}
		if in != "" && got.String() != in {
			t.Errorf("%v.String() = %q", got, got.String())
		}
	}
	if _, err := Parse("http3"); err == nil {
		t.Error("Parse(http3) took it")
	}
}

// The certificate verifies for 127.0.0.1 against its own pool, and
// negotiates h2 over ALPN.
func TestCertHandshake(t *testing.T) {
	c, err := NewCert()
	if err != nil {
		t.Fatal(err)
	}
	ln, err := tls.Listen("tcp", "127.0.0.1:0", c.ServerTLS(H2))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	done := make(chan error, 2)
	go func() {
		for range 2 {
			sc, err := ln.Accept()
			if err == nil {
				err = sc.(*tls.Conn).Handshake()
				_ = sc.Close()
			}
			done <- err
		}
	}()
	host, _, _ := net.SplitHostPort(ln.Addr().String())
	cc, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: c.Pool, ServerName: host, NextProtos: []string{"h2"}})
	if err != nil {
		t.Fatal(err)
	}
	if p := cc.ConnectionState().NegotiatedProtocol; p != "h2" {
		t.Errorf("negotiated %q, want h2", p)
	}
	_ = cc.Close()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	// Another certificate's pool does not trust it.
	other, _ := NewCert()
	if cc, err := tls.Dial("tcp", ln.Addr().String(), &tls.Config{RootCAs: other.Pool, ServerName: host}); err == nil {
		_ = cc.Close()
		t.Error("a stranger's pool trusted the certificate")
	}
	if err := <-done; err == nil {
		t.Error("the server finished a handshake the client refused")
	}
}
