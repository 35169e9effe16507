// Command retryclients is a fleet of real HTTP clients built on
// hashicorp/go-retryablehttp, for herdbench's game-day rehearsal
// (docs/game-day.md in the herdbench repository): -clients goroutines,
// each sending one POST after another to -url (a uniform 0-2 s apart),
// through one retryablehttp.Client with the library's defaults (1 s to
// 30 s waits, 4 retries, DefaultBackoff: no jitter) or, with -jitter
// full, a full-jitter backoff. Each attempt carries -user-agent and its
// attempt number in X-Retry-Attempt, set from the library's
// RequestLogHook, so herdbench proxy --cohort-by user-agent
// --attempt-header X-Retry-Attempt tells the fleets and their retries
// apart.
//
// It sends to loopback addresses only, and stops by itself after
// -duration.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/hashicorp/go-retryablehttp"
)

func main() {
	target := flag.String("url", "http://127.0.0.1:8090/", "where to send (a loopback address: the chaos proxy)")
	clients := flag.Int("clients", 100, "clients sending at once")
	duration := flag.Duration("duration", 20*time.Second, "how long to send, then stop")
	userAgent := flag.String("user-agent", "go-retryablehttp", "the User-Agent of every attempt: the fleet's cohort at the proxy")
	jitter := flag.String("jitter", "none", "the backoff: none (the library's DefaultBackoff) or full (full jitter: a uniform draw up to the same wait)")
	flag.Parse()
	if err := checkLoopback(*target); err != nil {
		fmt.Fprintln(os.Stderr, "retryclients:", err)
		os.Exit(2)
	}
	if *clients < 1 || *clients > 10000 || *duration <= 0 || *duration > time.Hour {
		fmt.Fprintln(os.Stderr, "retryclients: give 1 to 10000 -clients and a -duration up to 1h")
		os.Exit(2)
	}

	c := retryablehttp.NewClient() // RetryWaitMin 1s, RetryWaitMax 30s, RetryMax 4, DefaultBackoff
	c.Logger = nil
	c.HTTPClient.Transport.(*http.Transport).MaxIdleConnsPerHost = *clients
	switch *jitter {
	case "none":
	case "full":
		c.Backoff = func(lo, hi time.Duration, attemptNum int, resp *http.Response) time.Duration {
			wait := retryablehttp.DefaultBackoff(lo, hi, attemptNum, resp)
			return time.Duration(rand.Int64N(int64(wait) + 1))
		}
	default:
		fmt.Fprintf(os.Stderr, "retryclients: -jitter %q: give none or full\n", *jitter)
		os.Exit(2)
	}
	c.RequestLogHook = func(_ retryablehttp.Logger, r *http.Request, retry int) {
		r.Header.Set("User-Agent", *userAgent)
		r.Header.Set("X-Retry-Attempt", strconv.Itoa(retry+1))
	}

	ctx, cancel := context.WithTimeout(context.Background(), *duration)
	defer cancel()
	var ok, failed atomic.Int64
	var wg sync.WaitGroup
	for range *clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Duration(rand.Int64N(int64(2 * time.Second)))):
				}
				req, err := retryablehttp.NewRequestWithContext(ctx, http.MethodPost, *target, nil)
				if err != nil {
					log.Fatal(err)
				}
				resp, err := c.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						failed.Add(1)
					}
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	fmt.Printf("%s: %d requests answered, %d gave up\n", *userAgent, ok.Load(), failed.Load())
}

// checkLoopback refuses a URL whose host is not a loopback IP address or
// localhost: the rehearsal's load goes to the proxy on this machine.
func checkLoopback(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || u.Scheme != "http" {
		return fmt.Errorf("-url %q: give an http:// URL on this machine, e.g. http://127.0.0.1:8090/", raw)
	}
	host := u.Hostname()
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("-url %q: the rehearsal sends to a loopback address only (127.0.0.1, ::1, localhost)", raw)
	}
	return nil
}
