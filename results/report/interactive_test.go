package report

import (
	"bytes"
	"context"
	"encoding/json"
	"html"
	"math/rand/v2"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/internal/charts"
	"github.com/herdbench/herdbench/internal/uplot"
)

// unrle is charts.js's decode, in Go.
func unrle(rle []int64) []int64 {
	var out []int64
	var prev int64
	for _, v := range rle {
		if v < 0 {
			for range -v {
				out = append(out, prev)
			}
			continue
		}
		out = append(out, v)
		prev = v
	}
	return out
}

func TestRLE(t *testing.T) {
	for _, c := range []struct{ in, want []int64 }{
		{nil, nil},
		{[]int64{5}, []int64{5}},
		{[]int64{1, 1}, []int64{1, 1}},
		{[]int64{0, 0, 0, 0}, []int64{0, -3}},
		{[]int64{3, 0, 0, 0, 7, 7, 7}, []int64{3, 0, -2, 7, -2}},
	} {
		if got := rle(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("rle(%v) = %v, want %v", c.in, got, c.want)
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		in := make([]int64, rng.IntN(300))
		for i := range in {
			if rng.IntN(3) > 0 && i > 0 {
				in[i] = in[i-1]
			} else {
				in[i] = int64(rng.IntN(4)) * int64(rng.IntN(1_000_000))
			}
		}
		enc := rle(in)
		if got := unrle(enc); !slices.Equal(got, in) {
			t.Fatalf("decode(rle(%v)) = %v", in, got)
		}
		if len(enc) > len(in) {
			t.Fatalf("rle(%v) is longer than its input: %v", in, enc)
		}
	}
}

var (
	scriptElement = regexp.MustCompile(`(?s)<script([^>]*)>(.*?)</script>`)
	cspMeta       = regexp.MustCompile(`<meta http-equiv="Content-Security-Policy" content="([^"]*)">`)
)

// checkInlined checks that page inlines uPlot and charts.js unchanged,
// that its CSP lets exactly those two scripts run (by hash, no
// 'unsafe-inline' for scripts) and nothing load, and returns its chart
// data.
func checkInlined(t *testing.T, page []byte) *chartsData {
	t.Helper()
	m := cspMeta.FindSubmatch(page)
	if m == nil {
		t.Fatal("the page has no Content-Security-Policy")
	}
	directives := map[string][]string{}
	for _, d := range strings.Split(html.UnescapeString(string(m[1])), ";") {
		f := strings.Fields(d)
		if len(f) > 0 {
			directives[f[0]] = f[1:]
		}
	}
	if !slices.Equal(directives["default-src"], []string{"'none'"}) {
		t.Errorf("default-src is %v, want 'none': the page loads nothing", directives["default-src"])
	}
	var data *chartsData
	var hashes []string
	var bodies []string
	for _, s := range scriptElement.FindAllSubmatch(page, -1) {
		attrs, body := string(s[1]), string(s[2])
		if strings.Contains(attrs, "src") {
			t.Errorf("a script loads a file: <script%s>", attrs)
		}
		if strings.Contains(attrs, `type="application/json"`) {
			data = &chartsData{}
			if err := json.Unmarshal([]byte(body), data); err != nil {
				t.Fatalf("the chart data does not decode: %v", err)
			}
			continue
		}
		bodies = append(bodies, body)
		hashes = append(hashes, charts.ScriptHash(body))
	}
	if len(bodies) != 2 || bodies[0] != uplot.JS || bodies[1] != charts.JS {
		t.Errorf("the page runs %d scripts; want uPlot %s then charts.js, each exactly as embedded", len(bodies), uplot.Version)
	}
	if got := directives["script-src"]; !slices.Equal(got, hashes) {
		t.Errorf("script-src is %v; want exactly the hashes of the page's two scripts %v (no 'unsafe-inline')", got, hashes)
	}
	if !bytes.Contains(page, []byte(uplot.CSS)) {
		t.Error("the page lacks uPlot's stylesheet")
	}
	if bytes.Contains(page, []byte("<link")) {
		t.Error("the page links a file")
	}
	if data == nil {
		t.Fatal("the page has no chart data (script#herdbench-data)")
	}
	return data
}

func TestPageInlinesItsScripts(t *testing.T) {
	r := fixedRun(t, 1, 0, "fixture")
	files, err := Render([]*Run{r}, Options{Version: "v0.0.0-test", NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	data := checkInlined(t, files[0].Data)
	// The headline chart's counts are the cohorts' attempts at 10 ms:
	// they add up to summary.json's figure.
	if len(data.Charts) == 0 || data.Charts[0].ID != "attempts_1s" || data.Charts[0].ResS != 0.01 {
		t.Fatalf("the first interactive chart is not the attempts at 10 ms: %+v", data.Charts)
	}
	for i, s := range data.Charts[0].Panels[0].Series {
		var sum int64
		for _, v := range unrle(data.Series[*s.Data]) {
			sum += v
		}
		if want := r.Summary.Runs[i].Attempts; sum != want {
			t.Errorf("cohort %s: the page's 10 ms attempts add up to %d, summary.json says %d", s.Label, sum, want)
		}
	}

	dir := sweepFixture(t, map[string][]string{"strategies[0].jitter": {"0", "0.5", "1"}}, []string{"strategies[0].jitter"}, "")
	sw, err := LoadSweep(dir)
	if err != nil {
		t.Fatal(err)
	}
	sfiles, err := RenderSweep(context.Background(), sw, Options{Version: "v0.0.0-test", NoPNG: true})
	if err != nil {
		t.Fatal(err)
	}
	sdata := checkInlined(t, sfiles[0].Data)
	if len(sdata.Charts) != 1 || sdata.Charts[0].ID != "sweep_1" || len(sdata.Charts[0].X) != 3 {
		t.Errorf("the sweep's page draws %d interactive charts; want sweep_1 against the 3 values", len(sdata.Charts))
	}
}
