package recording

import (
	"fmt"
	"net"
	"net/http"
	"net/textproto"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/results"
)

// CohortBy is how a recording tells its clients apart: every attempt is
// put in the cohort of its key.
type CohortBy struct {
	kind   cohortKind
	header string // canonical, for byHeader
}

type cohortKind uint8

const (
	byNothing cohortKind = iota
	byUserAgent
	bySourceIP
	byHeader
)

// The cohort of every attempt when nothing tells them apart, and the
// cohort of the keys beyond the first MaxCohorts.
const (
	AllCohort   = "all"
	OtherCohort = "other"
	noneKey     = "(none)" // a request without the header
)

// maxKeyLength bounds a cohort's name: the first bytes of its key.
const maxKeyLength = 64

// ParseCohortBy reads --cohort-by: "" or "all" (one cohort), "user-agent",
// "source-ip" or "header:NAME".
func ParseCohortBy(s string) (CohortBy, error) {
	switch t := strings.TrimSpace(s); {
	case t == "" || t == AllCohort:
		return CohortBy{}, nil
	case strings.EqualFold(t, "user-agent"):
		return CohortBy{kind: byUserAgent}, nil
	case strings.EqualFold(t, "source-ip"):
		return CohortBy{kind: bySourceIP}, nil
	case len(t) > len("header:") && strings.EqualFold(t[:len("header:")], "header:"):
		name := strings.TrimSpace(t[len("header:"):])
		if _, err := ParseAttemptHeader(name); err != nil || name == "" {
			return CohortBy{}, fmt.Errorf("--cohort-by %q: %q is not a header name; write e.g. header:X-Client-Name", s, name)
		}
		if secret.Credential(name) {
			return CohortBy{}, fmt.Errorf("--cohort-by %q: %s carries credentials, and a cohort is named by its header's value, written into summary.json, the report and the live page; tell clients apart by a header of their own (header:X-Client-Name), their user-agent or source-ip", s, name)
		}
		return CohortBy{kind: byHeader, header: textproto.CanonicalMIMEHeaderKey(name)}, nil
	}
	return CohortBy{}, fmt.Errorf("--cohort-by %q: write user-agent, source-ip, header:NAME (e.g. header:X-Client-Name), or all for one cohort", s)
}

// String is the flag's value, as summary.json's recorded.cohort_by says it.
func (c CohortBy) String() string {
	switch c.kind {
	case byUserAgent:
		return "user-agent"
	case bySourceIP:
		return "source-ip"
	case byHeader:
		return "header:" + c.header
	}
	return AllCohort
}

// key returns r's cohort key, without copying: a header's value, or the
// client's IP address.
func (c CohortBy) key(r *http.Request) string {
	switch c.kind {
	case byUserAgent:
		return headerKey(r.Header["User-Agent"])
	case byHeader:
		return headerKey(r.Header[c.header])
	case bySourceIP:
		host, _, err := net.SplitHostPort(r.RemoteAddr)
		if err != nil {
			return r.RemoteAddr
		}
		return host
	}
	return AllCohort
}

func headerKey(vs []string) string {
	if len(vs) == 0 || vs[0] == "" {
		return noneKey
	}
	return vs[0]
}

// label makes a key a cohort's name: valid UTF-8, no control characters,
// at most maxKeyLength bytes, and never the name of the other cohort.
func label(key string) string {
	key = strings.ToValidUTF8(key, "?")
	key = strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f {
			return '?'
		}
		return r
	}, key)
	if len(key) > maxKeyLength {
		cut := maxKeyLength
		for cut > 0 && !utf8.RuneStart(key[cut]) {
			cut--
		}
		key = key[:cut] + "…"
	}
	if key == OtherCohort {
		key = OtherCohort + " (key)"
	}
	return key
}

// cohorts assigns keys to cohorts, first come first served: the first
// max distinct keys each get a cohort of their own, for the whole
// recording; every later key goes to "other". A cohort owns its data from
// its first attempt, so a key cannot be moved in later when it turns out
// busier than one that came first (its timeline would be split); this is
// how OpenTelemetry's SDKs bound an attribute's cardinality too (the
// first sets kept, the rest in an overflow series). The keys folded into
// "other" are counted with the Misra-Gries summary, so the summary can
// name the busiest of them.
type cohorts struct {
	max   int
	known atomic.Pointer[map[string]int] // key -> cohort index; replaced whole, never changed
	mu    sync.Mutex
	names []string // by index; the last is "other" once used
	other misraGries
}

// otherIndex is the other cohort's index: after the max of their own.
func (c *cohorts) otherIndex() int { return c.max }

// index returns key's cohort, assigning one on first sight.
func (c *cohorts) index(key string) int {
	if m := c.known.Load(); m != nil {
		if i, ok := (*m)[key]; ok {
			return i
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	old := map[string]int{}
	if m := c.known.Load(); m != nil {
		old = *m
	}
	if i, ok := old[key]; ok {
		return i
	}
	if len(c.names) < c.max {
		i := len(c.names)
		c.names = append(c.names, label(key))
		m := make(map[string]int, len(old)+1)
		for k, v := range old {
			m[k] = v
		}
		m[strings.Clone(key)] = i
		c.known.Store(&m)
		return i
	}
	c.other.add(key)
	return c.otherIndex()
}

// name returns cohort i's name.
func (c *cohorts) name(i int) string {
	if i == c.otherIndex() {
		return OtherCohort
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names[i]
}

// busiestOther returns the keys folded into "other" that sent the most
// attempts, at most n, the most first.
func (c *cohorts) busiestOther(n int) []results.KeyCount {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.other.top(n)
}

// misraGriesSize is how many keys of "other" are counted at once.
const misraGriesSize = 1000

// misraGries is the Misra-Gries frequent-items summary: with k counters,
// every key sent more than N/(k+1) of N attempts is kept, and each count
// is below the truth by at most N/(k+1) (exact while at most k keys were
// seen). Memory is k keys whatever the traffic.
type misraGries struct {
	counts map[string]int64
}

func (m *misraGries) add(key string) {
	if m.counts == nil {
		m.counts = map[string]int64{}
	}
	key = label(key)
	if _, ok := m.counts[key]; ok || len(m.counts) < misraGriesSize {
		m.counts[key]++
		return
	}
	for k := range m.counts {
		if m.counts[k]--; m.counts[k] == 0 {
			delete(m.counts, k)
		}
	}
}

func (m *misraGries) top(n int) []results.KeyCount {
	out := make([]results.KeyCount, 0, len(m.counts))
	for k, v := range m.counts {
		out = append(out, results.KeyCount{Key: k, Attempts: v})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Attempts != out[j].Attempts {
			return out[i].Attempts > out[j].Attempts
		}
		return out[i].Key < out[j].Key
	})
	return out[:min(n, len(out))]
}
