package cli

import (
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"
)

// The counted target answers 200 "ok" on / and counts each request, and
// Served reads the count back without counting itself.
func TestCountedServed(t *testing.T) {
	srv := httptest.NewServer(Counted())
	t.Cleanup(srv.Close)
	addr := strings.TrimPrefix(srv.URL, "http://")
	for i := range 3 {
		resp, err := http.Post(srv.URL+"/x", "text/plain", strings.NewReader("body"))
		if err != nil {
			t.Fatal(err)
		}
		b := make([]byte, 8)
		n, _ := resp.Body.Read(b)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK || string(b[:n]) != "ok\n" {
			t.Fatalf("request %d: %d %q; want 200 \"ok\\n\"", i+1, resp.StatusCode, b[:n])
		}
	}
	for range 2 {
		if n, err := Served(addr); err != nil || n != 3 {
			t.Fatalf("Served = %d, %v; want 3", n, err)
		}
	}
}

// Workdir with a binary named makes the folder, keeps the binary, and
// its remove takes the folder away.
func TestWorkdirNamedBinary(t *testing.T) {
	dir, hb, remove, err := Workdir("clitest-", "/path/to/herdbench")
	if err != nil {
		t.Fatal(err)
	}
	if hb != "/path/to/herdbench" {
		t.Errorf("binary %q; want the one named", hb)
	}
	if st, err := os.Stat(dir); err != nil || !st.IsDir() {
		t.Fatalf("folder %s: %v", dir, err)
	}
	remove()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("folder %s after remove: %v; want it gone", dir, err)
	}
}
