package folder

import (
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestTimelineRoundTrip(t *testing.T) {
	const dur = 3 * time.Second
	rec := results.NewRecorder(dur, 2)
	resultstest.Record(rec, 2, dur, 3000, 11)
	other := results.NewRecorder(dur, 1)
	resultstest.Record(other, 1, dur, 500, 12)
	for _, res := range []time.Duration{results.Bucket, 100 * time.Millisecond, time.Second} {
		want := []results.Timeline{rec.Timeline(res), other.Timeline(res)}
		data, err := EncodeTimeline([]string{"no-jitter", "full-jitter"}, want)
		if err != nil {
			t.Fatal(err)
		}
		names, got, err := DecodeTimeline(data)
		if err != nil {
			t.Fatalf("%s: %v", res, err)
		}
		if !reflect.DeepEqual(names, []string{"no-jitter", "full-jitter"}) {
			t.Errorf("%s: names %q", res, names)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: the timelines read back differ from those written", res)
		}
	}
}

func TestDecodeTimelineColumnsByName(t *testing.T) {
	// Columns in another order, one unknown column, most series missing.
	data := []byte("t_s,future_series,strategy,ok,retry1\n0.00,9,a,1,2\n0.25,9,a,3,4\n0.00,9,b,5,6\n")
	names, tl, err := DecodeTimeline(data)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(names, []string{"a", "b"}) {
		t.Fatalf("names %q", names)
	}
	if tl[0].Resolution != 250*time.Millisecond || tl[1].Resolution != results.Bucket {
		t.Errorf("resolutions %s, %s; want 250ms (from the rows) and 10ms (one row)", tl[0].Resolution, tl[1].Resolution)
	}
	if got := tl[0].Column(results.Series(results.OK)); !reflect.DeepEqual(got, []int64{1, 3}) {
		t.Errorf("a ok = %v", got)
	}
	if got := tl[1].Column(results.SeriesRetry1); !reflect.DeepEqual(got, []int64{6}) {
		t.Errorf("b retry1 = %v", got)
	}
	if got := tl[0].Column(results.SeriesFailed); !reflect.DeepEqual(got, []int64{0, 0}) {
		t.Errorf("a missing column failed = %v, want zeros", got)
	}
}

func TestDecodeTimelineErrors(t *testing.T) {
	for name, data := range map[string]string{
		"empty":        "",
		"no strategy":  "t_s,ok\n0,1\n",
		"bad time":     "strategy,t_s,ok\na,soon,1\n",
		"bad count":    "strategy,t_s,ok\na,0.00,many\n",
		"ragged":       "strategy,t_s,ok\na,0.00\n",
		"time stands":  "strategy,t_s,ok\na,0.00,1\na,0.00,1\n",
		"not a number": "strategy,t_s,ok\na,0.00,1.5\n",
	} {
		if _, _, err := DecodeTimeline([]byte(data)); !errors.Is(err, ErrTimeline) {
			t.Errorf("%s: got %v, want ErrTimeline", name, err)
		}
	}
}
