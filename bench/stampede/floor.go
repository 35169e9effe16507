package main

import (
	"bufio"
	"bytes"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// runFloorTarget serves the crash round's minimal target until stdin
// closes: the least a server can do to hold requests and crash. Each
// connection's goroutine reads its request and, before the crash, leaves
// it held, unread from then on (so that closing it is one system call);
// at the crash one loop resets every held connection (SO_LINGER 0, then
// close); after it, each request is answered 200 and its connection
// closed. Its control is runCrashTarget's: "start UNIXNANO" lines on
// stdin, each answered "ok", the crash at crashAt after that instant.
func runFloorTarget(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	defer ln.Close()
	fmt.Println(ln.Addr())
	var (
		mu      sync.Mutex
		held    []*net.TCPConn
		crashed bool
	)
	answer := []byte("HTTP/1.1 200 OK\r\nContent-Length: 3\r\n\r\nok\n")
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				tc := c.(*net.TCPConn)
				buf := make([]byte, 0, 512)
				for !bytes.Contains(buf, []byte("\r\n\r\n")) {
					n, err := tc.Read(buf[len(buf):cap(buf)])
					if err != nil {
						_ = tc.Close()
						return
					}
					buf = buf[:len(buf)+n]
				}
				mu.Lock()
				if !crashed {
					held = append(held, tc)
					mu.Unlock()
					return
				}
				mu.Unlock()
				_, _ = tc.Write(answer)
				_ = tc.Close()
			}()
		}
	}()
	in := bufio.NewScanner(os.Stdin)
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) != 2 || f[0] != "start" {
			return fmt.Errorf("floor target: %q: want start UNIXNANO", in.Text())
		}
		ns, err := strconv.ParseInt(f[1], 10, 64)
		if err != nil {
			return err
		}
		go func() {
			time.Sleep(time.Until(time.Unix(0, ns).Add(crashAt)))
			mu.Lock()
			crashed = true
			cs := held
			held = nil
			mu.Unlock()
			for _, c := range cs {
				_ = c.SetLinger(0)
				_ = c.Close()
			}
		}()
		fmt.Println("ok")
	}
	return in.Err()
}
