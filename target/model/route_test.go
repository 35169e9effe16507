package model

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/dist"
)

// TestRoutes: the first route that matches a request serves it with its
// own service time; a path ending in / matches the paths below it; the
// rest take the default.
func TestRoutes(t *testing.T) {
	cfg := Config{Concurrency: 4, Queue: 4, QueueTimeout: time.Second, ServiceTime: dist.Const(time.Millisecond), Routes: []Route{
		{Method: "PUT", Path: "/items/", ServiceTime: dist.Const(50 * time.Millisecond)},
		{Path: "/health", ServiceTime: dist.Const(0)},
	}}
	for _, c := range []struct {
		method, path string
		route        int
		service      time.Duration
	}{
		{"PUT", "/items/7?x=1", 1, 50 * time.Millisecond},
		{"GET", "/items/7", 0, time.Millisecond},
		{"GET", "/health", 2, 0},
		{"GET", "/health/deep", 0, time.Millisecond},
		{"POST", "/", 0, time.Millisecond},
	} {
		r := cfg.Route(c.method, c.path)
		if r != c.route {
			t.Errorf("%s %s: route %d, want %d", c.method, c.path, r, c.route)
		}
		m := NewModel(cfg, nil, rand.New(rand.NewPCG(1, 1)))
		if j, adm := m.ArriveOn(0, r); adm != Started || j.Service != c.service {
			t.Errorf("%s %s: %v with service %v, want started with %v", c.method, c.path, adm, j.Service, c.service)
		}
	}
}
