package chaos

import (
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
)

func TestFlaky(t *testing.T) {
	f, errs := (&FlakySpec{Rate: 0.5, Delay: "10ms"}).Compile()
	if errs != nil {
		t.Fatal(errs)
	}
	e := EffectOf(f)
	if e.ErrorRate != 0.5 || len(e.Delays) != 1 || e.Delays[0] != dist.Const(10*time.Millisecond) {
		t.Errorf("effect %+v", e)
	}
}
