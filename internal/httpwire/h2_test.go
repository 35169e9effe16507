package httpwire

import (
	"fmt"
	"slices"
	"testing"

	"golang.org/x/net/http2"
	"golang.org/x/net/http2/hpack"

	"github.com/herdbench/herdbench/internal/wire"
	"github.com/herdbench/herdbench/results"
)

//lint:file-ignore SA1019 x/net's GoAwayError, as its transport (the proxy's upstream) returns it

// h2 needs an https target and h2c an http one; the HTTP/2 request is the
// HTTP/1.1 one's: POST, no body, herdbench's User-Agent, the URL's
// credentials as Basic auth, never in the URL sent.
func TestEndpointOverHTTP2(t *testing.T) {
	for _, c := range []struct {
		url   string
		proto wire.Protocol
		ok    bool
	}{
		{"http://127.0.0.1:1/", wire.H2C, true},
		{"https://127.0.0.1:1/", wire.H2, true},
		{"http://127.0.0.1:1/", wire.H2, false},
		{"https://127.0.0.1:1/", wire.H2C, false},
	} {
		ep, err := NewEndpoint(c.url, nil, nil)
		if err != nil {
			t.Fatal(err)
		}
		if err := ep.Use(c.proto, nil); (err == nil) != c.ok {
			t.Errorf("%s over %v: %v", c.url, c.proto, err)
		}
	}
	ep, err := NewEndpoint("https://user:pw@127.0.0.1:1/base/x?q=1", nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := ep.Use(wire.H2, nil); err != nil {
		t.Fatal(err)
	}
	want := []hpack.HeaderField{
		{Name: ":method", Value: "POST"}, {Name: ":scheme", Value: "https"}, {Name: ":authority", Value: "127.0.0.1:1"},
		{Name: ":path", Value: "/base/x?q=1"}, {Name: "user-agent", Value: "herdbench"},
		{Name: "authorization", Value: "Basic dXNlcjpwdw=="}, {Name: "content-length", Value: "0"},
	}
	if r := ep.h2req; !slices.Equal(r.fields, want) || len(r.body) != 0 {
		t.Errorf("request %v, body %q; want %v, no body", r.fields, r.body, want)
	}
	if got := ep.tls.NextProtos; len(got) != 1 || got[0] != "h2" {
		t.Errorf("ALPN offers %v; want h2 only", got)
	}
}

// HTTP/2's errors for a stream: one a GOAWAY refused (the swarm's, or
// x/net's transport's for the proxy), or the server refused, is refused
// (not processed); one the server reset is a reset.
func TestClassifyHTTP2(t *testing.T) {
	for err, want := range map[error]results.Outcome{
		&h2GoAwayError{LastStreamID: 1, Code: http2.ErrCodeNo}:                            results.Refused,
		http2.GoAwayError{LastStreamID: 1, ErrCode: http2.ErrCodeNo}:                      results.Refused,
		fmt.Errorf("round trip: %w", http2.StreamError{Code: http2.ErrCodeRefusedStream}): results.Refused,
		http2.StreamError{StreamID: 3, Code: http2.ErrCodeInternal}:                       results.Reset,
	} {
		if got := Classify(err); got != want {
			t.Errorf("Classify(%v) = %v, want %v", err, got, want)
		}
	}
}
