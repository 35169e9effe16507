package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// TestHeaderFlags: --header and --header-file put their headers on every
// request, as written (braces are no placeholders there), and nothing of their values lands in the results folder; a bad
// header is refused with exit 2, its value unquoted, before anything is
// sent.
func TestHeaderFlags(t *testing.T) {
	var hits, authed atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		if r.Header.Get("Authorization") == "Bearer s3cret-token" && r.Header.Get("X-Tenant") == "t-hidden" && r.Header.Get("X-Braces") == "{uuid}" && r.URL.Path == "/base/users/0" {
			authed.Add(1)
		}
	}))
	defer srv.Close()
	scenario := writeScenario(t, "name: secrets\nduration: 30s\nworkload: {kind: oneshot, clients: 1}\nrequests:\n  - {method: GET, path: \"/users/{client}\"}\nstrategies:\n  - name: a\n    backoff: full\n")
	headerFile := filepath.Join(t.TempDir(), "headers.txt")
	if err := os.WriteFile(headerFile, []byte("# secrets\nX-Tenant: t-hidden\nX-Braces: {uuid}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	code, _, stderr := runCLI(t, "scenario", scenario, "--target", srv.URL+"/base/", "--header", "Authorization: Bearer s3cret-token", "--header-file", headerFile, "--out", out, "-q", "--no-png", "--allow-untrustworthy")
	if code != exitOK || authed.Load() != 1 {
		t.Fatalf("exit %d, %d requests with the headers (want 1); stderr:\n%s", code, authed.Load(), stderr)
	}
	err := filepath.Walk(out, func(p string, fi os.FileInfo, err error) error {
		if err != nil || fi.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		if strings.Contains(string(b), "s3cret") || strings.Contains(string(b), "t-hidden") {
			t.Errorf("%s holds a header's value", p)
		}
		if filepath.Base(p) == "scenario.yaml" && !strings.Contains(string(b), "(values redacted): Authorization, X-Tenant, X-Braces") {
			t.Errorf("scenario.yaml does not name the redacted headers:\n%s", b)
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	before := hits.Load()
	for _, h := range []string{"X-A: ok\r\nX-Injected: s3cret", "Host: elsewhere", "no colon"} {
		code, _, stderr := runCLI(t, "scenario", scenario, "--target", srv.URL+"/", "--header", h, "--out", out, "-q", "--allow-untrustworthy")
		if code != exitUsage || !strings.Contains(stderr, "--header") || strings.Contains(stderr, "s3cret") {
			t.Errorf("--header %q: exit %d, stderr:\n%s\nwant 2, naming --header, never the value", h, code, stderr)
		}
	}
	if hits.Load() != before {
		t.Error("a refused header still sent requests")
	}
}
