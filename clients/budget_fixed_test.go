package clients

import (
	"testing"
	"time"
)

func TestFixedBudget(t *testing.T) {
	b := defaultSpec(t, Budgets, "fixed").New()
	if got := countRetries(b, 0, false, 100); got != 10 {
		t.Errorf("retries = %d, want 10", got)
	}
	if got := countRetries(b, 2*time.Second, false, 100); got != 10 {
		t.Errorf("retries a window later = %d, want 10", got)
	}
}
