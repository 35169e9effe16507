package main

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"
)

// promqlKeywords are PromQL words that are not metric names when they
// are not followed by "(": binary operators, modifiers and literals.
var promqlKeywords = map[string]bool{
	"and": true, "or": true, "unless": true, "bool": true, "offset": true, "atan2": true,
	"inf": true, "nan": true, "Inf": true, "NaN": true,
}

// promqlLabelLists are the keywords a parenthesised list of label names
// follows.
var promqlLabelLists = map[string]bool{
	"by": true, "without": true, "on": true, "ignoring": true, "group_left": true, "group_right": true,
}

// metricNames returns the metric names a PromQL expression selects, in
// order of first use: every identifier that is not a function or
// aggregation (followed by "(", or by "by" or "without"), a keyword, a label list after by,
// without, on, ignoring, group_left or group_right, a label matcher inside
// {...}, a range or subquery inside [...], a string, a number or a Grafana
// variable ($name).
func metricNames(expr string) []string {
	var out []string
	isStart := func(c byte) bool { return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
	isPart := func(c byte) bool { return isStart(c) || c >= '0' && c <= '9' }
	skipString := func(i int) int { // i at the opening quote; returns past the closing one
		q := expr[i]
		for i++; i < len(expr); i++ {
			switch {
			case expr[i] == '\\' && q != '`':
				i++
			case expr[i] == q:
				return i + 1
			}
		}
		return i
	}
	skipTo := func(i int, close byte) int { // i past the opening bracket
		for i < len(expr) && expr[i] != close {
			if c := expr[i]; c == '"' || c == '\'' || c == '`' {
				i = skipString(i)
				continue
			}
			i++
		}
		return i + 1
	}
	nextNonSpace := func(i int) int {
		for i < len(expr) && (expr[i] == ' ' || expr[i] == '\t' || expr[i] == '\n') {
			i++
		}
		return i
	}
	for i := 0; i < len(expr); {
		c := expr[i]
		switch {
		case c == '"' || c == '\'' || c == '`':
			i = skipString(i)
		case c == '{':
			i = skipTo(i+1, '}')
		case c == '[':
			i = skipTo(i+1, ']')
		case c == '$':
			for i++; i < len(expr) && isPart(expr[i]); i++ {
			}
		case c >= '0' && c <= '9' || c == '.':
			for i++; i < len(expr) && (isPart(expr[i]) || expr[i] == '.'); i++ {
			}
		case isStart(c):
			j := i
			for j < len(expr) && isPart(expr[j]) {
				j++
			}
			word := expr[i:j]
			k := nextNonSpace(j)
			switch {
			case promqlLabelLists[word]:
				if k < len(expr) && expr[k] == '(' {
					k = skipTo(k+1, ')')
				}
				j = k
			case k < len(expr) && expr[k] == '(':
				// a function or an aggregation
			case strings.HasPrefix(expr[k:], "by") || strings.HasPrefix(expr[k:], "without"):
				// an aggregation with its grouping first: sum by (x) (...)
			case promqlKeywords[word]:
			default:
				if !slices.Contains(out, word) {
					out = append(out, word)
				}
			}
			i = j
		default:
			i++
		}
	}
	return out
}

func TestMetricNames(t *testing.T) {
	for _, c := range []struct {
		expr string
		want []string
	}{
		{`up`, []string{"up"}},
		{`sum by (cohort, attempt) (irate(herdbench_swarm_attempts_total{cohort=~"$cohort"}[5s]))`, []string{"herdbench_swarm_attempts_total"}},
		{`histogram_quantile(0.99, sum by (cohort, le) (rate(a_bucket{x="by (y)", z='{w}'}[$__rate_interval])))`, []string{"a_bucket"}},
		{`sum without (le) (a) / on (cohort) group_left (x) b > bool 0.5 and c offset 5m`, []string{"a", "b", "c"}},
		{`stddev_over_time((sum by (cohort) (irate(x[2s])))[10s:1s]) ^ 2 / avg_over_time(x[10s])`, []string{"x"}},
		{`max by (fault) (herdbench_swarm_active_fault) > 0`, []string{"herdbench_swarm_active_fault"}},
		{`rate(ns:metric_total[1m]) * 1e3 + Inf`, []string{"ns:metric_total"}},
		{`{__name__="hidden"}`, nil},
		{`a or bytes_total`, []string{"a", "bytes_total"}},
		{`a{l="say \"b\" {c}"} + d`, []string{"a", "d"}},
	} {
		if got := metricNames(c.expr); !slices.Equal(got, c.want) {
			t.Errorf("metricNames(%q) = %q, want %q", c.expr, got, c.want)
		}
	}
}

// dashboardExprs returns every PromQL expression of a Grafana dashboard:
// its panels' targets (in rows too), its annotations and its variables'
// queries.
func dashboardExprs(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	type target struct {
		Expr string `json:"expr"`
	}
	type panel struct {
		Title   string   `json:"title"`
		Targets []target `json:"targets"`
		Panels  []panel  `json:"panels"`
	}
	var d struct {
		Panels      []panel `json:"panels"`
		Annotations struct {
			List []target `json:"list"`
		} `json:"annotations"`
		Templating struct {
			List []struct {
				Query struct {
					Query string `json:"query"`
				} `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(data, &d); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	var out []string
	var walk func([]panel)
	walk = func(ps []panel) {
		for _, p := range ps {
			for _, tg := range p.Targets {
				if tg.Expr == "" {
					t.Errorf("%s: panel %q has a target without an expression", path, p.Title)
				}
				out = append(out, tg.Expr)
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	for _, a := range d.Annotations.List {
		if a.Expr != "" {
			out = append(out, a.Expr)
		}
	}
	for _, v := range d.Templating.List {
		// label_values(metric, label): the metric is its first argument.
		if q, ok := strings.CutPrefix(v.Query.Query, "label_values("); ok {
			out = append(out, strings.TrimSpace(strings.Split(q, ",")[0]))
		}
	}
	return out
}

// TestDashboardNamesExportedMetrics starts herdbench target, herdbench
// proxy and a short scenario with --metrics-addr on 127.0.0.1, scrapes
// each /metrics, and checks that every metric name the dashboard's PromQL
// uses is one of theirs (a histogram's _bucket, _sum and _count series
// too).
func TestDashboardNamesExportedMetrics(t *testing.T) {
	defer goleak.VerifyNone(t)
	exprs := dashboardExprs(t, filepath.Join("..", "..", "dashboards", "herdbench.json"))
	if len(exprs) < 10 {
		t.Fatalf("the dashboard has %d expressions; want its panels' queries", len(exprs))
	}
	exposed := map[string]bool{}
	addFamilies := func(url string) {
		resp, err := http.Get(url)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(resp.Body)
		for line := range strings.SplitSeq(string(body), "\n") {
			f, ok := strings.CutPrefix(line, "# TYPE ")
			if !ok {
				continue
			}
			fields := strings.Fields(f)
			exposed[fields[0]] = true
			if fields[1] == "histogram" {
				for _, s := range []string{"_bucket", "_sum", "_count"} {
					exposed[fields[0]+s] = true
				}
			}
		}
	}

	scenario := writeScenario(t, faultyTarget)
	upstream := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) {}))
	defer upstream.Close()
	for _, args := range [][]string{
		{"target", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--no-record"},
		{"proxy", "--listen", "127.0.0.1:0", "--control-addr", "127.0.0.1:0", "--scenario", scenario, "--upstream", upstream.URL, "--no-record"},
	} {
		ctx, cancel := context.WithCancel(context.Background())
		var stderr syncBuffer
		done := make(chan int)
		go func() { done <- run(ctx, args, io.Discard, &stderr) }()
		control := stderr.waitFor(t, controlAddrRE)
		addFamilies(control + "/metrics")
		cancel()
		if code := <-done; code != exitOK {
			t.Fatalf("%s: exit code %d\n%s", args[0], code, stderr.String())
		}
	}

	swarm := writeScenario(t, `name: live
duration: 1500ms
seed: 3
workload:
  clients: 4
  think: 20ms
chaos:
  - name: down
    kind: outage
    at: 0s
    for: 1s
strategies:
  - name: plain
    backoff: full
    base: 10ms
`)
	var stderr syncBuffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"scenario", swarm, "--out", t.TempDir(), "-q", "--no-png", "--metrics-addr", "127.0.0.1:0", "--allow-untrustworthy"}, io.Discard, &stderr)
	}()
	metrics := stderr.waitFor(t, metricsAddrRE)
	deadline := time.Now().Add(20 * time.Second)
	for {
		_, samples := scrape(t, metrics)
		if samples["herdbench_swarm_elapsed_seconds"] > 0.2 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the run did not reach 0.2 s")
		}
		time.Sleep(20 * time.Millisecond)
	}
	addFamilies(metrics)
	if code := <-done; code != exitOK {
		t.Fatalf("scenario: exit code %d\n%s", code, stderr.String())
	}

	for _, e := range exprs {
		names := metricNames(e)
		if len(names) == 0 {
			t.Errorf("no metric name in the dashboard's query %q", e)
		}
		for _, n := range names {
			if !exposed[n] {
				t.Errorf("the dashboard's query %q names %s, which no herdbench /metrics exposes", e, n)
			}
		}
	}
}
