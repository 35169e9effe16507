package engine

import "testing"

// heavy skips, under -race, a test that runs the real engine on
// thousands of clients (or through a collapse) in synctest bubbles: the
// race detector makes each such test cost about five times as much, and
// together they were two thirds of the package's race run. They run
// without it in CI (.ci/run's step "the real engine's heavy cases"),
// where their figures, not data races, are what they check; the real
// engine's code runs under the race detector in this package's other
// tests. what says what the test runs, for the skip message; with -short
// every such test skips.
func heavy(t *testing.T, what string) {
	t.Helper()
	switch {
	case testing.Short():
		t.Skip("runs " + what)
	case raceEnabled:
		t.Skip("runs " + what + ": without -race only (.ci/run runs it so)")
	}
}
