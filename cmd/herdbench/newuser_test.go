package main

import (
	"strings"
	"testing"
)

// TestMisspeltCommandIsNamed: a typo of a command says which command was
// meant, in one line, instead of the whole usage; a word near no command
// still gets the usage.
func TestMisspeltCommandIsNamed(t *testing.T) {
	for arg, want := range map[string]string{"scenarios": `"scenario"`, "valdiate": `"validate"`, "proxi": `"proxy"`, "reprot": `"report"`} {
		code, _, stderr := runCLI(t, arg, "outage")
		if code != exitUsage || !strings.Contains(stderr, "did you mean "+want) || strings.Contains(stderr, "Exit codes") {
			t.Errorf("%s: exit %d, stderr %q; want 2, a did-you-mean of %s and no usage", arg, code, stderr, want)
		}
	}
	if code, _, stderr := runCLI(t, "frobnicate"); code != exitUsage || strings.Contains(stderr, "did you mean") || !strings.Contains(stderr, "Usage:") {
		t.Errorf("frobnicate: exit %d, stderr %q; want 2 and the usage", code, stderr)
	}
}
