package chaos

import (
	"strings"
	"testing"
	"time"
)

// TestPushbackStopWinsOverlaps: of overlapping pushbacks the longest is
// sent, and the stop form over any.
func TestPushbackStopWinsOverlaps(t *testing.T) {
	e := Healthy()
	Pushback{Rate: 1, Status: 429, Pushback: 250 * time.Millisecond}.Apply(&e)
	Pushback{Rate: 1, Status: 429, Pushback: PushbackStop}.Apply(&e)
	Pushback{Rate: 1, Status: 429, Pushback: time.Second}.Apply(&e)
	if e.Pushback != PushbackStop {
		t.Errorf("overlapping pushbacks: %v, want the stop form", e.Pushback)
	}
}

func TestPushbackSpec(t *testing.T) {
	one := 1.0
	half := 0.5
	zero := 0.0
	tests := []struct {
		spec PushbackSpec
		want Pushback
		errs string // fields in error, comma-separated
	}{
		{PushbackSpec{}, Pushback{Rate: 1, Status: 503, RetryAfter: time.Second}, ""},
		{PushbackSpec{Status: 429, RetryAfter: "2s", Rate: &half}, Pushback{Rate: 0.5, Status: 429, RetryAfter: 2 * time.Second}, ""},
		{PushbackSpec{Rate: &one, RetryAfter: "1m"}, Pushback{Rate: 1, Status: 503, RetryAfter: time.Minute}, ""},
		{PushbackSpec{Status: 500}, Pushback{}, "status"},
		{PushbackSpec{Rate: &zero}, Pushback{}, "rate"},
		{PushbackSpec{RetryAfter: "500ms"}, Pushback{}, "retry_after"},
		{PushbackSpec{RetryAfter: "1.5s"}, Pushback{}, "retry_after"},
		{PushbackSpec{RetryAfter: "soon", Status: 404}, Pushback{}, "status,retry_after"},
		{PushbackSpec{Status: 429, PushbackMS: "250"}, Pushback{Rate: 1, Status: 429, RetryAfter: time.Second, Pushback: 250 * time.Millisecond}, ""},
		{PushbackSpec{PushbackMS: "stop"}, Pushback{Rate: 1, Status: 503, RetryAfter: time.Second, Pushback: PushbackStop}, ""},
		{PushbackSpec{PushbackMS: "0"}, Pushback{Rate: 1, Status: 503, RetryAfter: time.Second, Pushback: 1}, ""},
		{PushbackSpec{PushbackMS: "-1"}, Pushback{}, "pushback_ms"},
		{PushbackSpec{PushbackMS: ".nan"}, Pushback{}, "pushback_ms"},
		{PushbackSpec{PushbackMS: "86400001"}, Pushback{}, "pushback_ms"},
	}
	for _, tt := range tests {
		f, errs := tt.spec.Compile()
		var fields []string
		for _, e := range errs {
			fields = append(fields, e.Field)
		}
		if got := strings.Join(fields, ","); got != tt.errs {
			t.Errorf("%+v: errors in %q, want %q (%v)", tt.spec, got, tt.errs, errs)
			continue
		}
		if tt.errs == "" && f != tt.want {
			t.Errorf("%+v: %+v, want %+v", tt.spec, f, tt.want)
		}
	}
	if _, ok := NewSpec("pushback"); !ok {
		t.Fatal("pushback is not registered")
	}
}

func TestPushbacksCombine(t *testing.T) {
	e := Healthy()
	Pushback{Rate: 0.5, Status: 429, RetryAfter: time.Second}.Apply(&e)
	Pushback{Rate: 0.5, Status: 503, RetryAfter: 3 * time.Second}.Apply(&e)
	if e.ErrorRate != 0.75 || e.ErrorStatus != 429 || e.RetryAfter != 3*time.Second {
		t.Fatalf("effect %v %v %v; want 0.75, 429, 3s", e.ErrorRate, e.ErrorStatus, e.RetryAfter)
	}
}
