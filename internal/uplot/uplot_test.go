package uplot

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"testing"
)

func TestVendoredFilesAreThePinnedRelease(t *testing.T) {
	for _, f := range []struct{ name, body, want string }{
		{"uPlot.iife.min.js", JS, JSSHA256},
		{"uPlot.min.css", CSS, CSSSHA256},
	} {
		sum := sha256.Sum256([]byte(f.body))
		if got := hex.EncodeToString(sum[:]); got != f.want {
			t.Errorf("%s: sha256 %s, want %s (the pinned uplot %s)", f.name, got, f.want, Version)
		}
	}
	if !strings.Contains(JS[:80], "(v"+Version+")") {
		t.Errorf("uPlot.iife.min.js's banner %q does not name version %s", JS[:80], Version)
	}
}
