package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
)

func TestAnswerLen(t *testing.T) {
	ok := "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nDate: x\r\n\r\nok\n"
	for _, c := range []struct {
		in    string
		n     int
		is200 bool
	}{
		{ok, len(ok), true},
		{ok + "HTTP/1.1 200 OK\r\n", len(ok), true},  // the next answer's start is left
		{ok[:len(ok)-1], 0, false},                   // the body is not all there
		{"HTTP/1.1 200 OK\r\nContent-Len", 0, false}, // nor the head
		{"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n\r\n", 55, false},
		{"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nok\n\r\n0\r\n\r\n", -1, false},
		{"HTTP/1.1 200 OK\r\nContent-Length: x\r\n\r\n", -1, false},
	} {
		n, is200 := answerLen([]byte(c.in))
		if n != c.n || is200 != c.is200 {
			t.Errorf("answerLen(%q) = %d, %v; want %d, %v", c.in, n, is200, c.n, c.is200)
		}
	}
}

// TestFloorsAgainstTheTarget runs each floor for a moment against the
// counted target: every answer it counts is a 200 the target served.
func TestFloorsAgainstTheTarget(t *testing.T) {
	srv := httptest.NewServer(cli.Counted())
	defer srv.Close()
	addr := strings.TrimPrefix(srv.URL, "http://")
	for name, run := range map[string]func(string, int, time.Duration, io.Writer) error{
		"goroutines": runFloorGoroutines,
		"epoll":      runFloorEpoll,
	} {
		t.Run(name, func(t *testing.T) {
			before, err := cli.Served(addr)
			if err != nil {
				t.Fatal(err)
			}
			var out bytes.Buffer
			if err := run(addr, 4, 200*time.Millisecond, &out); err != nil {
				t.Fatal(err)
			}
			var r struct{ P99Micros, Attempts, OK int64 }
			if err := json.Unmarshal(out.Bytes(), &r); err != nil {
				t.Fatalf("%v in %q", err, out.String())
			}
			after, err := cli.Served(addr)
			if err != nil {
				t.Fatal(err)
			}
			served := after - before
			if r.Attempts == 0 || r.OK != r.Attempts || r.P99Micros <= 0 {
				t.Errorf("got %+v: want answers, every one a 200, and a latency", r)
			}
			// Each connection may leave one request unanswered at the end.
			if served < r.Attempts || served > r.Attempts+4 {
				t.Errorf("the target served %d requests, the floor counted %d answers", served, r.Attempts)
			}
		})
	}
}
