package telemetry

import (
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/prometheus/client_golang/prometheus"
)

// blocking is a collector whose Collect waits until released: a slow
// scrape.
type blocking struct {
	desc    *prometheus.Desc
	release chan struct{}
}

func (b *blocking) Describe(ch chan<- *prometheus.Desc) { ch <- b.desc }
func (b *blocking) Collect(ch chan<- prometheus.Metric) {
	<-b.release
	ch <- prometheus.MustNewConstMetric(b.desc, prometheus.GaugeValue, 1)
}

// TestScrapesBounded: past MaxScrapes scrapes at once, a scrape is
// answered 503 at once instead of building one more exposition.
func TestScrapesBounded(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		b := &blocking{desc: prometheus.NewDesc("slow", "A slow metric.", nil, nil), release: make(chan struct{})}
		h := Handler(b)
		const scrapes = 3 * MaxScrapes
		codes := make([]int, scrapes)
		var wg sync.WaitGroup
		for i := range scrapes {
			wg.Go(func() {
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
				codes[i] = rec.Code
			})
		}
		synctest.Wait() // every scrape is in flight or answered
		close(b.release)
		wg.Wait()
		n := map[int]int{}
		for _, c := range codes {
			n[c]++
		}
		if n[http.StatusOK] != MaxScrapes || n[http.StatusServiceUnavailable] != scrapes-MaxScrapes {
			t.Errorf("answers %v, want %d ok and %d 503", n, MaxScrapes, scrapes-MaxScrapes)
		}
	})
}
