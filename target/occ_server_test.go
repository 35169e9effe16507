package target

import (
	"context"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/dist"
	"github.com/herdbench/herdbench/target/model"
)

// TestServerOCC: the real server's OCC endpoints, with a network delay per
// hop: a read answers the version, a write of the current version
// succeeds, a stale one answers 409 Conflict.
func TestServerOCC(t *testing.T) {
	plan, _ := chaos.NewPlan(nil, 0)
	s, err := Listen(Options{Config: model.Config{Kind: model.OCC, Concurrency: 4, ServiceTime: dist.Const(0), Network: dist.Const(2 * time.Millisecond)}, Plan: plan})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	post := func(path string) (int, string) {
		t.Helper()
		req, _ := http.NewRequestWithContext(context.Background(), http.MethodPost, s.URL()+path, nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, strings.TrimSpace(string(b))
	}
	if code, body := post(PathRead); code != 200 || body != "0" {
		t.Fatalf("read: %d %q", code, body)
	}
	if code, _ := post(PathWrite + "?version=0"); code != 200 {
		t.Fatalf("write 0: %d", code)
	}
	if code, _ := post(PathWrite + "?version=0"); code != http.StatusConflict {
		t.Fatalf("stale write: %d, want 409", code)
	}
	if code, body := post(PathRead); code != 200 || body != "1" {
		t.Fatalf("read: %d %q", code, body)
	}
	if code, _ := post(PathWrite + "?version=x"); code != http.StatusNotFound {
		t.Fatalf("bad version: %d", code)
	}
	if code, body := post("/anything"); code != 200 || body != "ok" {
		t.Fatalf("plain: %d %q", code, body)
	}
	if st := s.Stats(); st.Served != 5 {
		t.Fatalf("served %d", st.Served)
	}
}
