package folder

import (
	"bytes"
	"encoding/csv"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/results"
	"github.com/herdbench/herdbench/results/resultstest"
)

func TestTierTimeline(t *testing.T) {
	c := resultstest.ChainFixture()
	data, err := EncodeTierTimeline([]results.Cohort{c}, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	rows, err := csv.NewReader(bytes.NewReader(data)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rows[0][:5], ","); got != "strategy,tier,t_s,attempts,ok" {
		t.Errorf("header %s", got)
	}
	if len(rows) != 1+2*3 {
		t.Fatalf("%d rows, want a header and 3 seconds for each of 2 tiers", len(rows))
	}
	// The service's second second: users 5 to 9, 2 calls × 3 tries each.
	if r := rows[5]; r[0] != "every-tier" || r[1] != "service" || r[2] != "1.00" || r[3] != "30" {
		t.Errorf("service at 1 s: %v", r)
	}
	// The gateway's rows are the cohort's timeline.
	want, _ := EncodeTimeline([]string{"every-tier"}, []results.Timeline{c.Rec.Timeline(time.Second)})
	wrows, _ := csv.NewReader(bytes.NewReader(want)).ReadAll()
	for i := 1; i <= 3; i++ {
		if strings.Join(rows[i][3:], ",") != strings.Join(wrows[i][2:], ",") {
			t.Errorf("gateway row %d: %v, timeline.csv %v", i, rows[i], wrows[i])
		}
	}
}

func TestTierTimelineRoundTrip(t *testing.T) {
	c := resultstest.ChainFixture()
	data, err := EncodeTierTimeline([]results.Cohort{c, {Strategy: "other", Rec: c.Rec, Tiers: c.Tiers, Below: c.Below}}, results.Bucket)
	if err != nil {
		t.Fatal(err)
	}
	cohorts, tiers, timelines, err := DecodeTierTimeline(data)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(cohorts, ",") != "every-tier,other" || strings.Join(tiers[1], ",") != "gateway,service" {
		t.Fatalf("cohorts %v, tiers %v", cohorts, tiers)
	}
	want := c.Below[0].Timeline(results.Bucket)
	got := timelines[0][1]
	if got.Resolution != results.Bucket || len(got.Rows) != len(want.Rows) || got.Rows[100] != want.Rows[100] {
		t.Errorf("the service's timeline did not come back: %v rows at %s", len(got.Rows), got.Resolution)
	}
	if _, _, _, err := DecodeTierTimeline([]byte("strategy,t_s,ok\nx,0.00,1\n")); err == nil || !strings.Contains(err.Error(), "lacks tier") {
		t.Errorf("a timeline without tiers: %v", err)
	}
}
