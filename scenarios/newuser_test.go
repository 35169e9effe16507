package scenarios

import (
	"strings"
	"testing"
)

// TestStrategiesFlagSaysWhichWasMeant: a misspelt --strategies name gets
// the did-you-mean every misspelt field of the file gets.
func TestStrategiesFlagSaysWhichWasMeant(t *testing.T) {
	src := "name: two\nstrategies:\n  - {name: no-jitter, backoff: exponential}\n  - {name: full-jitter, backoff: full}\n"
	_, err := compile(t, src, Overrides{Strategies: []string{"no-jiter"}})
	if err == nil || !strings.Contains(err.Error(), `--strategies names "no-jiter", which is not a strategy of this scenario (did you mean "no-jitter"?); its strategies: no-jitter, full-jitter`) {
		t.Errorf("--strategies no-jiter: %v; want a did-you-mean of no-jitter", err)
	}
	_, err = compile(t, src, Overrides{Strategies: []string{"budgeted"}})
	if err == nil || strings.Contains(err.Error(), "did you mean") {
		t.Errorf("--strategies budgeted: %v; want an error without a did-you-mean", err)
	}
}
