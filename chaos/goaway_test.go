package chaos

import (
	"testing"
	"time"
)

// mode goaway compiles to its outage, takes no Retry-After, and ranks
// between 503 and refuse when outages overlap; a server going away, like
// one refusing, does not listen, but it does not crash.
func TestGoawayOutage(t *testing.T) {
	f, errs := (&OutageSpec{Mode: "goaway"}).Compile()
	if len(errs) > 0 || f != (Outage{Mode: Goaway}) {
		t.Fatalf("goaway compiled to %v, %v", f, errs)
	}
	if _, errs := (&OutageSpec{Mode: "goaway", RetryAfter: "2s"}).Compile(); len(errs) != 1 || errs[0].Field != "retry_after" {
		t.Errorf("goaway with retry_after: %v; want a retry_after problem", errs)
	}
	if Goaway.Crashes() || Goaway.Listening() || !Unavailable.Listening() || Refuse.Listening() {
		t.Error("goaway must neither crash nor listen; 503 listens, refuse does not")
	}
	for _, c := range []struct {
		modes []OutageMode
		want  OutageMode
	}{
		{[]OutageMode{Unavailable, Goaway}, Goaway},
		{[]OutageMode{Goaway, Unavailable}, Goaway},
		{[]OutageMode{Goaway, Refuse}, Refuse},
		{[]OutageMode{Reset, Goaway}, Reset},
	} {
		var faults []Timed
		for _, m := range c.modes {
			faults = append(faults, Timed{Kind: "outage", At: 0, For: time.Second, Fault: Outage{Mode: m}})
		}
		p, err := NewPlan(faults, 0)
		if err != nil {
			t.Fatal(err)
		}
		if got := p.ActiveAt(500 * time.Millisecond).Outage; got != c.want {
			t.Errorf("%v overlapping: %v, want %v", c.modes, got, c.want)
		}
	}
	if Goaway.String() != "goaway" {
		t.Errorf("Goaway.String() = %q", Goaway.String())
	}
}
