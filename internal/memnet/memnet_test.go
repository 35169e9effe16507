package memnet

import (
	"context"
	"errors"
	"syscall"
	"testing"
)

func TestListenDialRefuse(t *testing.T) {
	var n Network
	if _, err := n.Dial(context.Background(), "tcp", "a:1"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial with no listener: %v, want ECONNREFUSED", err)
	}
	l, err := n.Listen("tcp", "a:1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := n.Listen("tcp", "a:1"); !errors.Is(err, syscall.EADDRINUSE) {
		t.Fatalf("second listen: %v, want EADDRINUSE", err)
	}
	accepted := make(chan error, 1)
	go func() {
		c, err := l.Accept()
		if err == nil {
			_, err = c.Write([]byte("x"))
			c.Close()
		}
		accepted <- err
	}()
	c, err := n.Dial(context.Background(), "tcp", "a:1")
	if err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 1)
	if _, err := c.Read(buf); err != nil || buf[0] != 'x' {
		t.Fatalf("read %q, %v", buf, err)
	}
	c.Close()
	if err := <-accepted; err != nil {
		t.Fatal(err)
	}
	l.Close()
	if _, err := n.Dial(context.Background(), "tcp", "a:1"); !errors.Is(err, syscall.ECONNREFUSED) {
		t.Fatalf("dial after close: %v, want ECONNREFUSED", err)
	}
	if _, err := n.Listen("tcp", "a:1"); err != nil {
		t.Fatalf("listen again after close: %v", err)
	}
}
