package decode

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
)

// A fault given by hand to the control API is read as strictly.
func TestParseFaultRefusesTags(t *testing.T) {
	_, err := ParseFault("request", []byte(`{"kind": "outage", "mode": !!python/object:os.system "503", "for": "5s"}`))
	if err == nil || !strings.Contains(err.Error(), "mode: the YAML tag !!python/object:os.system is refused") {
		t.Errorf("got %v; want the tag refused", err)
	}
}

func TestParseFault(t *testing.T) {
	f, err := ParseFault("inject", []byte(`{"kind":"outage","mode":"503","for":"5s","retry_after":"2s"}`))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "outage" || f.At != 0 || f.For != 5*time.Second || f.Fault != (chaos.Outage{Mode: chaos.Unavailable, RetryAfter: 2 * time.Second}) {
		t.Errorf("ParseFault = %+v", f)
	}
	f, err = ParseFault("inject", []byte("name: slow\nkind: blip\ndelay: 200ms\nat: 1s\nfor: 3s\n"))
	if err != nil {
		t.Fatal(err)
	}
	if f.Name != "slow" || f.At != time.Second || f.For != 3*time.Second {
		t.Errorf("ParseFault (YAML) = %+v", f)
	}
	for _, c := range []struct{ body, want string }{
		{`{"kind":"outage","mode":"503"}`, "for: missing"},
		{`{"kind":"outrage","for":"1s"}`, `did you mean "outage"`},
		{`{"kind":"outage","mode":"down","for":"1s"}`, "unknown outage mode"},
		{`{"kind":"outage","for":"1s","colour":"red"}`, `unknown field "colour"`},
		{`{"kind":"blip","for":"-1s","delay":"1s"}`, "not a length of time"},
		{`[1,2]`, "a fault is a mapping"},
		{`{"kind":`, "YAML syntax"},
	} {
		_, err := ParseFault("inject", []byte(c.body))
		if err == nil || !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("ParseFault(%s): %v; want an invalid-scenario error containing %q", c.body, err, c.want)
		}
	}
}

// An Error counts its problems as spoken: "1 problem", "2 problems".
func TestErrorCountsProblemsAsSpoken(t *testing.T) {
	one := &Error{File: "a.yaml", Problems: []Problem{{Line: 2, Path: "duration", Msg: "missing"}}}
	two := &Error{File: "a.yaml", Problems: []Problem{{Line: 2, Path: "duration", Msg: "missing"}, {Line: 3, Path: "seed", Msg: "not a number"}}}
	for _, tc := range []struct {
		err  *Error
		want string
	}{{one, "a.yaml: 1 problem:\n"}, {two, "a.yaml: 2 problems:\n"}} {
		if got := tc.err.Error(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("Error() = %q, want it to start %q", got, tc.want)
		}
	}
}
