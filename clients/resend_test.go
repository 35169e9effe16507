package clients

import (
	"testing"

	"github.com/herdbench/herdbench/results"
)

func TestParseTransport(t *testing.T) {
	for _, tr := range []Transport{RawTransport, NetHTTP} {
		if got, ok := ParseTransport(tr.String()); !ok || got != tr {
			t.Errorf("ParseTransport(%q) = %v, %v", tr.String(), got, ok)
		}
	}
	if _, ok := ParseTransport("curl"); ok {
		t.Error("ParseTransport(curl) succeeded")
	}
	if !NetHTTP.Resends(results.Reset, true, true) || NetHTTP.Resends(results.Reset, false, true) || NetHTTP.Resends(results.Timeout, true, true) ||
		RawTransport.Resends(results.Reset, true, true) || NetHTTP.Resends(results.Reset, true, false) {
		t.Error("Resends: only net/http, a reset, on a reused connection, of a replayable request")
	}
}
