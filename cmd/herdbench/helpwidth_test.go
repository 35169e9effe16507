package main

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestHelpProseIsWrapped: the prose of every command's --help (its lines
// that are not indented: not the flags, examples or lists) is wrapped at 80
// columns, and no line of a paragraph breaks off short mid-paragraph (the
// proxy's once read "so its memory stays\nbounded. Point\nthe swarm").
func TestHelpProseIsWrapped(t *testing.T) {
	for _, name := range []string{"", "scenario", "report", "validate", "list", "target", "proxy", "merge", "k8s", "completion", "version"} {
		args := []string{"--help"}
		if name != "" {
			args = []string{name, "--help"}
		}
		code, stdout, stderr := runCLI(t, args...)
		if code != exitOK {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		lines := strings.Split(stdout, "\n")
		for i, l := range lines {
			if l == "" || strings.HasPrefix(l, " ") || strings.HasPrefix(l, "\t") {
				continue
			}
			if n := utf8.RuneCountInString(l); n > 80 {
				t.Errorf("herdbench %s --help: line %d is %d columns wide: %q", name, i+1, n, l)
			}
			next := ""
			if i+1 < len(lines) {
				next = lines[i+1]
			}
			if next != "" && !strings.HasPrefix(next, " ") && utf8.RuneCountInString(l) < 40 && !strings.HasSuffix(l, ":") {
				t.Errorf("herdbench %s --help: line %d breaks off short mid-paragraph: %q, then %q", name, i+1, l, next)
			}
		}
	}
}

// TestHelpShowsHowToStart: validate's and list's --help show commands to
// copy (list's once said to copy a scenario without naming --print, and
// validate's had no example at all).
func TestHelpShowsHowToStart(t *testing.T) {
	for name, want := range map[string]string{
		"list":     "  herdbench scenario outage --print > my.yaml\n  herdbench validate my.yaml\n",
		"validate": "Examples:\n  herdbench validate my.yaml\n",
	} {
		if code, out, _ := runCLI(t, name, "--help"); code != exitOK || !strings.Contains(out, want) {
			t.Errorf("herdbench %s --help: exit %d, stdout %q; want it to show %q", name, code, out, want)
		}
	}
}

// wrapWords holds each line to its width, keeps every word in order, and
// gives a word longer than the width a line of its own.
func TestWrapWords(t *testing.T) {
	text := "The outage over gRPC: grpc-go's own retries, whose ±20% jitter leaves waves that full jitter does not, and a-word-longer-than-the-width"
	lines := wrapWords(text, 24)
	for _, l := range lines {
		if n := utf8.RuneCountInString(l); n > 24 && strings.Contains(l, " ") {
			t.Errorf("line %q is %d columns, want at most 24", l, n)
		}
	}
	if got := strings.Join(lines, " "); got != text {
		t.Errorf("wrapped and joined: %q, want %q", got, text)
	}
	if last := lines[len(lines)-1]; last != "a-word-longer-than-the-width" {
		t.Errorf("the long word shares a line: %q", last)
	}
}
