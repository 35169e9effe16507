package control

import (
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/target"
	"github.com/herdbench/herdbench/target/model"
)

// TestResultsCall: POST /control/results writes the recording's results
// through Options.Results and answers where they are, behind the same
// guard as every call; 409 with nothing recorded, 404 when the server does
// not record, 500 with the writer's error.
func TestResultsCall(t *testing.T) {
	n := &memnet.Network{}
	srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Config: model.Config{Concurrency: 1}})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	var answer ResultsAnswer
	var fail error
	calls := 0
	h := Handler(Options{Server: srv, Access: local, Results: func() (ResultsAnswer, error) {
		calls++
		return answer, fail
	}})
	post := func(h http.Handler, contentType string) (int, string) {
		req := httptest.NewRequest("POST", "http://127.0.0.1:8091/control/results", strings.NewReader("{}"))
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	answer = ResultsAnswer{Dir: "runs/g-20260101T000000Z", Failed: 1, Thresholds: []results.ThresholdResult{{Cohort: "a", Expression: "herd_factor < 3", Pass: false}}}
	code, body := post(h, "application/json")
	var got ResultsAnswer
	if err := json.Unmarshal([]byte(body), &got); code != 200 || err != nil || got.Dir != answer.Dir || got.Failed != 1 || len(got.Thresholds) != 1 {
		t.Errorf("results: %d %s", code, body)
	}
	if code, _ := post(h, "text/plain"); code != http.StatusUnsupportedMediaType || calls != 1 {
		t.Errorf("a text/plain POST: %d after %d calls; want 415 before any write", code, calls)
	}
	fail = ErrNothingRecorded
	if code, body := post(h, "application/json"); code != http.StatusConflict || !strings.Contains(body, "nothing recorded yet") {
		t.Errorf("nothing recorded: %d %s", code, body)
	}
	fail = errors.New("disk full")
	if code, body := post(h, "application/json"); code != http.StatusInternalServerError || !strings.Contains(body, "disk full") {
		t.Errorf("a failed write: %d %s", code, body)
	}
	if code, body := post(Handler(Options{Server: srv, Access: local}), "application/json"); code != http.StatusNotFound || !strings.Contains(body, "--no-record") {
		t.Errorf("without a recording: %d %s", code, body)
	}
}
