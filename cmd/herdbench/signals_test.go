package main

import (
	"testing"
	"time"
)

func TestInterruptLine(t *testing.T) {
	now := time.Date(2026, 12, 2, 6, 30, 1, 234_000_000, time.Local)
	for _, tc := range []struct{ role, want string }{
		{"proxy", "06:30:01.234 herdbench proxy: stopping"},
		{"target", "06:30:01.234 herdbench target: stopping"},
		{"scenario", "herdbench scenario: stopping"},
		{"run", "herdbench scenario: stopping"},
		{"report", "herdbench report: stopping"},
		{"", "herdbench: stopping"},
		{"--help", "herdbench: stopping"},
	} {
		if got := interruptLine(tc.role, now, "stopping"); got != tc.want {
			t.Errorf("interruptLine(%q) = %q, want %q", tc.role, got, tc.want)
		}
	}
}
