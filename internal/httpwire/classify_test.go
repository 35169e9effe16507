package httpwire

import (
	"context"
	"errors"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
)

func TestClassify(t *testing.T) {
	// Refused: a port nobody listens on.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closedAddr := ln.Addr().String()
	ln.Close()

	// Reset: a server that answers every connection with an RST.
	rst, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer rst.Close()
	go func() {
		for {
			c, err := rst.Accept()
			if err != nil {
				return
			}
			buf := make([]byte, 1024)
			_, _ = c.Read(buf)
			_ = c.(*net.TCPConn).SetLinger(0)
			_ = c.Close()
		}
	}()

	post := func(ctx context.Context, addr string) error {
		req, _ := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+addr+"/", http.NoBody)
		tr := &http.Transport{}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Do(req)
		if err == nil {
			resp.Body.Close()
		}
		return err
	}
	expired, cancel := context.WithDeadline(context.Background(), time.Now().Add(-time.Second))
	defer cancel()

	cases := []struct {
		name string
		err  error
		want results.Outcome
	}{
		{"nil", nil, results.OK},
		{"refused", post(context.Background(), closedAddr), results.Refused},
		{"reset", post(context.Background(), rst.Addr().String()), results.Reset},
		{"deadline", post(expired, rst.Addr().String()), results.Timeout},
		{"other", errors.New("something else"), results.Error},
	}
	for _, c := range cases {
		if got := Classify(c.err); got != c.want {
			t.Errorf("%s: Classify(%v) = %v, want %v", c.name, c.err, got, c.want)
		}
	}
}
