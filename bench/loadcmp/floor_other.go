//go:build !linux

package main

import (
	"errors"
	"io"
	"time"
)

// runFloorEpoll needs Linux's epoll.
func runFloorEpoll(addr string, conns int, d time.Duration, w io.Writer) error {
	return errors.New("the floor-epoll tool needs Linux (epoll)")
}
