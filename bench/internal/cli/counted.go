package cli

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync/atomic"
)

// Listen listens on addr and prints the address it got as the first line
// of standard output: the serving side of Serve, which reads that line.
func Listen(addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	fmt.Println(ln.Addr().String())
	return ln, nil
}

// Counted is the trivial target of the load comparisons (loadcmp, h2cmp):
// every request on / is read to its end and answered 200 "ok", and
// /_count answers how many it has served (Served).
func Counted() http.Handler {
	var n atomic.Int64
	ok := []byte("ok\n")
	mux := http.NewServeMux()
	mux.HandleFunc("/_count", func(w http.ResponseWriter, r *http.Request) { fmt.Fprintln(w, n.Load()) })
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		_, _ = io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Length", "3")
		_, _ = w.Write(ok)
	})
	return mux
}

// Served returns how many requests the Counted target at addr (host:port)
// has served so far.
func Served(addr string) (int64, error) {
	resp, err := http.Get("http://" + addr + "/_count")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return 0, err
	}
	return strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
}
