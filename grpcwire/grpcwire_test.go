package grpcwire

import (
	"testing"
	"time"
)

func TestCheckMethod(t *testing.T) {
	for m, ok := range map[string]bool{
		Method: true, "/helloworld.Greeter/SayHello": true, "/a.b.c.Svc/M": true,
		"": false, "SayHello": false, "/Greeter/SayHello": false, "helloworld.Greeter/SayHello": false,
		"/helloworld.Greeter/": false, "/helloworld.Greeter/Say/Hello": false, "/.Greeter/Say": false, "/helloworld./Say": false,
	} {
		if err := CheckMethod(m); (err == nil) != ok {
			t.Errorf("CheckMethod(%q) = %v; want ok %v", m, err, ok)
		}
	}
}

func TestPushback(t *testing.T) {
	for d, want := range map[time.Duration]string{0: "0", time.Microsecond: "1", 1500 * time.Millisecond: "1500", -1: "-1"} {
		if got := PushbackValue(d); got != want {
			t.Errorf("PushbackValue(%v) = %q; want %q", d, got, want)
		}
	}
	for v, want := range map[string]struct {
		wait time.Duration
		stop bool
	}{"1500": {1500 * time.Millisecond, false}, "0": {0, false}, "-1": {0, true}, "soon": {0, true}, "": {0, true}} {
		if w, s := ParsePushback(v); w != want.wait || s != want.stop {
			t.Errorf("ParsePushback(%q) = %v, %v; want %v, %v", v, w, s, want.wait, want.stop)
		}
	}
}
