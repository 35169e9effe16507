package wire

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"math/big"
	"net"
	"time"
)

// Protocol is how requests travel to a target.
type Protocol uint8

// Protocols. The zero value is HTTP/1.1.
const (
	HTTP1 Protocol = iota // HTTP/1.1 (http:// or https://)
	H2                    // HTTP/2 over TLS, negotiated with ALPN
	H2C                   // HTTP/2 over cleartext TCP, with prior knowledge
)

var names = [...]string{HTTP1: "http1", H2: "h2", H2C: "h2c"}

func (p Protocol) String() string {
	if int(p) < len(names) {
		return names[p]
	}
	return fmt.Sprintf("Protocol(%d)", uint8(p))
}

// HTTP2 reports whether p is a flavour of HTTP/2.
func (p Protocol) HTTP2() bool { return p == H2 || p == H2C }

// Scheme is the URL scheme of a target that speaks p.
func (p Protocol) Scheme() string {
	if p == H2 {
		return "https"
	}
	return "http"
}

// Parse reads a protocol's name: http1 (also the empty string), h2 or h2c.
func Parse(s string) (Protocol, error) {
	switch s {
	case "", "http1":
		return HTTP1, nil
	case "h2":
		return H2, nil
	case "h2c":
		return H2C, nil
	}
	return 0, fmt.Errorf("unknown protocol %q; valid protocols are http1 (HTTP/1.1, the default), h2 (HTTP/2 over TLS) and h2c (HTTP/2 over cleartext, prior knowledge)", s)
}

// Cert is a self-signed certificate for 127.0.0.1, ::1 and localhost,
// made in memory: the key never leaves the process.
type Cert struct {
	TLS  tls.Certificate
	Pool *x509.CertPool // trusts exactly this certificate
}

// NewCert makes a fresh certificate valid from an hour ago for a day.
func NewCert() (*Cert, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("wire: a key for the target's certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, fmt.Errorf("wire: a serial for the target's certificate: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"herdbench"}, CommonName: "herdbench target"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(24 * time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("wire: the target's certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("wire: the target's certificate: %w", err)
	}
	pool := x509.NewCertPool()
	pool.AddCert(leaf)
	return &Cert{TLS: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}, Pool: pool}, nil
}

// ServerTLS is a server's TLS configuration for c, offering p's ALPN
// protocols (h2 first, then http/1.1; http/1.1 only for HTTP1).
func (c *Cert) ServerTLS(p Protocol) *tls.Config {
	cfg := &tls.Config{Certificates: []tls.Certificate{c.TLS}, MinVersion: tls.VersionTLS12}
	if p == H2 {
		cfg.NextProtos = []string{"h2", "http/1.1"}
	} else {
		cfg.NextProtos = []string{"http/1.1"}
	}
	return cfg
}
