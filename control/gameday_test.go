package control

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"google.golang.org/grpc/codes"

	"github.com/herdbench/herdbench/chaos"
	"github.com/herdbench/herdbench/internal/memnet"
	"github.com/herdbench/herdbench/target"
)

type closeFunc func() error

func (c closeFunc) Close() error { return c() }

// TestGameDay: a target's game day in virtual time, over the in-memory
// network: the control API answers on its own address, the live page is
// started with a control API of its own and closed at the end, the faults
// are logged as they come and go at the plan's instants, --exit-after
// ends the day, and the server is closed once.
func TestGameDay(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := &memnet.Network{}
		plan, _ := chaos.NewPlan([]chaos.Timed{{Name: "down", Kind: "outage", At: time.Second, For: 2 * time.Second, Fault: chaos.Outage{Mode: chaos.Unavailable}}}, 0)
		srv, err := target.Listen(target.Options{Addr: "t:80", Listen: n.Listen, Plan: plan})
		if err != nil {
			t.Fatal(err)
		}
		var mu sync.Mutex
		var log []string
		closed, uiClosed := 0, 0
		status := make(chan int, 1)
		g := GameDay{
			API: Options{Server: srv}, Addr: "127.0.0.1:8091", Listen: n.Listen,
			Access:    func(net.Addr) Access { return local },
			ExitAfter: 5 * time.Second, Recording: "recording nothing",
			UI: func(h func(Access) http.Handler) (io.Closer, error) {
				if h(local) == nil {
					t.Error("the live page got no control API")
				}
				return closeFunc(func() error { uiClosed++; return nil }), nil
			},
			Close: func() error { closed++; return srv.Close() },
			Logf: func(f string, a ...any) {
				mu.Lock()
				defer mu.Unlock()
				log = append(log, fmt.Sprintf(f, a...))
			},
		}
		go func() { // the control API answers while the day runs
			time.Sleep(500 * time.Millisecond)
			c := http.Client{Transport: &http.Transport{DialContext: n.Dial}}
			resp, err := c.Get("http://127.0.0.1:8091/control/status")
			if err != nil {
				t.Error(err)
				status <- 0
				return
			}
			_ = resp.Body.Close()
			status <- resp.StatusCode
		}()
		end, err := Serve(context.Background(), g)
		if err != nil || end.Stopped != nil || end.CloseErr != nil {
			t.Fatalf("Serve: %v, %+v", err, end)
		}
		if code := <-status; code != http.StatusOK || closed != 1 || uiClosed != 1 {
			t.Errorf("status %d, server closed %d times, page %d; want 200, 1, 1", code, closed, uiClosed)
		}
		all := strings.Join(log, "\n")
		for _, want := range []string{"recording nothing", "chaos plan: down (outage) 1s–3s; started now", "fault on: down (plan t=1s)", "fault off: down (plan t=3s)", "--exit-after 5s passed; stopping", "stopped; answered"} {
			if !strings.Contains(all, want) {
				t.Errorf("the log lacks %q:\n%s", want, all)
			}
		}
	})
}

// TestGameDayCannotListen: a control address that cannot be listened on
// is ErrControlListen, and the server is closed.
func TestGameDayCannotListen(t *testing.T) {
	closed := false
	_, err := Serve(context.Background(), GameDay{
		Addr:   "c:81",
		Listen: func(string, string) (net.Listener, error) { return nil, errors.New("in use") },
		Close:  func() error { closed = true; return nil },
		Logf:   func(string, ...any) {},
	})
	if !errors.Is(err, ErrControlListen) || !strings.Contains(err.Error(), "in use") || !closed {
		t.Errorf("err %v, closed %v; want ErrControlListen with the cause, and the server closed", err, closed)
	}
}

// A gRPC server's stop line speaks gRPC: its calls by status code, OK
// first and then the codes that occurred, never HTTP's 4xx/429/5xx.
func TestCodesText(t *testing.T) {
	var c [target.NumCodes]int64
	if got := CodesText(c); got != "OK 0" {
		t.Errorf("no calls: %q", got)
	}
	c[codes.OK], c[codes.Unavailable], c[codes.ResourceExhausted], c[codes.DeadlineExceeded], c[codes.Canceled] = 4285, 289, 7, 2, 3
	if got, want := CodesText(c), "OK 4285, CANCELLED 3, DEADLINE_EXCEEDED 2, RESOURCE_EXHAUSTED 7, UNAVAILABLE 289"; got != want {
		t.Errorf("CodesText = %q, want %q", got, want)
	}
	for i, n := range codeNames {
		var c codes.Code // grpc-go reads a code by its name, as a service config writes it
		if err := c.UnmarshalJSON([]byte(`"` + n + `"`)); err != nil || c != codes.Code(i) {
			t.Errorf("code %d named %q: grpc-go reads it as %v (%v)", i, n, c, err)
		}
	}
}
