package main

import (
	"fmt"
	"io"
	"net"
	"runtime"
	"sync"
	"syscall"
	"time"
)

// loopConn is one of an event loop's connections.
type loopConn struct {
	fd   int
	sent time.Time
	buf  []byte
	have int
}

// runFloorEpoll is the floor of an event loop per core: each loop owns a
// thread, an epoll set and its share of the connections, and serves every
// ready connection per wake-up, reading its answer and writing its next
// request at once.
func runFloorEpoll(addr string, conns int, d time.Duration, w io.Writer) error {
	ta, err := net.ResolveTCPAddr("tcp4", addr)
	if err != nil {
		return err
	}
	sa := &syscall.SockaddrInet4{Port: ta.Port}
	copy(sa.Addr[:], ta.IP.To4())
	req := floorRequest(addr)
	deadline := time.Now().Add(d)
	loops := min(runtime.GOMAXPROCS(0), conns)
	t := newTally(loops)
	var wg sync.WaitGroup
	for k := range loops {
		ep, cs, err := floorLoop(addr, sa, k, loops, conns)
		if err != nil {
			return err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer syscall.Close(ep)
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			h := newFloorHist()
			var n, good int64
			fail := t.fail
			for _, c := range cs {
				defer syscall.Close(c.fd)
				c.sent = time.Now()
				if _, err := syscall.Write(c.fd, req); err != nil {
					fail(err)
					return
				}
			}
			evs := make([]syscall.EpollEvent, 128)
			for time.Now().Before(deadline) {
				m, err := syscall.EpollWait(ep, evs, 50)
				if err == syscall.EINTR {
					continue
				}
				if err != nil {
					fail(err)
					return
				}
				for _, e := range evs[:m] {
					c := cs[e.Fd]
					r, err := syscall.Read(c.fd, c.buf[c.have:])
					if err == syscall.EAGAIN {
						continue
					}
					if err != nil || r == 0 {
						fail(fmt.Errorf("read: %v (%d bytes)", err, r))
						return
					}
					c.have += r
					k, is200 := answerLen(c.buf[:c.have])
					switch {
					case k < 0 || (k == 0 && c.have == len(c.buf)):
						fail(fmt.Errorf("an answer the floor does not read: %q", c.buf[:c.have]))
						return
					case k == 0:
						continue // the rest of the answer is to come
					}
					_ = h.RecordValue(time.Since(c.sent).Microseconds())
					n++
					if is200 {
						good++
					}
					c.have = copy(c.buf, c.buf[k:c.have])
					c.sent = time.Now()
					if _, err := syscall.Write(c.fd, req); err != nil {
						fail(err)
						return
					}
				}
			}
			t.add(h, n, good)
		}()
	}
	wg.Wait()
	return t.write(w)
}

// floorLoop opens loop k's epoll and its connections (every loops-th of
// conns), each nonblocking and in the epoll by its index.
func floorLoop(addr string, sa *syscall.SockaddrInet4, k, loops, conns int) (ep int, cs []*loopConn, err error) {
	if ep, err = syscall.EpollCreate1(syscall.EPOLL_CLOEXEC); err != nil {
		return 0, nil, err
	}
	for i := k; i < conns; i += loops {
		fd, err := syscall.Socket(syscall.AF_INET, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
		if err != nil {
			return 0, nil, err
		}
		if err := syscall.Connect(fd, sa); err != nil {
			return 0, nil, fmt.Errorf("connect %s: %w", addr, err)
		}
		_ = syscall.SetsockoptInt(fd, syscall.IPPROTO_TCP, syscall.TCP_NODELAY, 1)
		if err := syscall.SetNonblock(fd, true); err != nil {
			return 0, nil, err
		}
		cs = append(cs, &loopConn{fd: fd, buf: make([]byte, 4096)})
		ev := syscall.EpollEvent{Events: syscall.EPOLLIN, Fd: int32(len(cs) - 1)}
		if err := syscall.EpollCtl(ep, syscall.EPOLL_CTL_ADD, fd, &ev); err != nil {
			return 0, nil, err
		}
	}
	return ep, cs, nil
}
