package engine

import (
	"fmt"
	"strconv"

	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/scenarios"
)

// What a results folder's files take on disk, measured on this code's
// folders (docs/limits.md has the commands and the figures); each a little
// above what was measured, so that a run refused for want of space would
// not have fitted: TestOutputEstimateIsHonest in cmd/herdbench holds a
// real folder's size between 0.5 and 1 of the estimate.
const (
	// diskRowBase is a timeline row's fixed part: its time column and 23
	// counts that are mostly one digit and a comma (measured 60 to 66
	// bytes with the strategy's name).
	diskRowBase = 10 + 23*2
	// diskDigitColumns are the columns whose counts grow with the clients
	// (attempts, outcomes, attempt numbers, requests): a digit more on
	// each per factor of ten.
	diskDigitColumns = 4
	// diskHlogPerSecond is one second of one cohort's .hlog (measured 0.6
	// to 3.6 KiB: a compressed histogram, in base64).
	diskHlogPerSecond = 4 << 10
	// diskReportBase is report.html's fixed part: uPlot, the page, the
	// tables (measured about 200 KiB).
	diskReportBase = 256 << 10
	// diskReportPerSecond is one cohort-second of report.html's data, up
	// to diskReportSeconds, beyond which the page thins its series out
	// (measured 1.7 to 1.8 KiB); in a sweep's, one cohort at one point.
	diskReportPerSecond = 2 << 10
	diskReportSeconds   = 300
	// diskPNGs is the PNG copies of a run's report's charts at --dpi 120
	// (measured 0.5 to 0.6 MiB for ten charts), diskSweepPNGs a sweep's
	// (0.13 MiB a chart); they grow with the square of the resolution.
	diskPNGs      = 768 << 10
	diskSweepPNGs = 512 << 10
	// diskSweepReportBase is a sweep's report.html without its points
	// (measured 85 KiB with 15 cohort-points).
	diskSweepReportBase = 96 << 10
	// diskSummaryPerCohort is a cohort's part of summary.json (about 1.3
	// KiB) and diskSummaryBase the rest; a sweep writes one per point.
	diskSummaryPerCohort = 2 << 10
	diskSummaryBase      = 4 << 10
	// diskSweepRow is one cohort at one point in sweep.csv.
	diskSweepRow = 1 << 10
)

// OutputEstimate is the size of the results folder a run of plans writes,
// by part, in bytes.
type OutputEstimate struct {
	Total     uint64
	Timelines uint64 // timeline.csv, timeline_1s.csv (and a chain's tiers)
	Hlogs     uint64 // the .hlog files
	Report    uint64 // report.html and its PNGs
	Other     uint64 // summaries, sweep.csv, scenario.yaml
}

// EstimateOutput estimates the results folder that Execute(plans, o)
// writes: a run's (o.Timelines: timelines, a .hlog per cohort and a
// report of them), or a sweep's (a summary per point, sweep.csv, and a
// report of its figures). dpi is the PNGs' resolution, 0 for none.
func EstimateOutput(plans []*scenarios.Plan, o Options, dpi int) OutputEstimate {
	var e OutputEstimate
	pngs := func(base uint64) uint64 {
		if dpi <= 0 {
			return 0
		}
		return sat(sat(base, uint64(dpi)), uint64(dpi)) / (120 * 120)
	}
	p := plans[0]
	cohorts := uint64(len(p.Strategies))
	if !o.Timelines {
		points := uint64(len(plans))
		e.Other = add(sat(points, add(diskSummaryBase, sat(cohorts, add(diskSummaryPerCohort, diskSweepRow)))), uint64(len(p.Resolved)))
		e.Report = add(add(diskSweepReportBase, sat(sat(points, cohorts), diskReportPerSecond)), pngs(diskSweepPNGs))
	} else {
		secs := seconds(p.Duration)
		series := sat(cohorts, tiersOf(p)) // a chain writes each tier's timeline
		row := diskRowBase + uint64(maxNameLen(p)) + diskDigitColumns*uint64(digits(peakPerBucket(p))-1)
		e.Timelines = sat(sat(series, add(sat(secs, 100), secs)), row)
		e.Hlogs = sat(sat(cohorts, secs), diskHlogPerSecond)
		e.Report = add(add(diskReportBase, sat(sat(cohorts, min(secs, diskReportSeconds)), diskReportPerSecond)), pngs(diskPNGs))
		e.Other = add(add(diskSummaryBase, sat(cohorts, diskSummaryPerCohort)), uint64(len(p.Resolved)))
	}
	e.Total = add(add(add(e.Timelines, e.Hlogs), e.Report), e.Other)
	return e
}

// String names the parts, for a message.
func (e OutputEstimate) String() string {
	if e.Timelines == 0 {
		return fmt.Sprintf("about %s: the report %s, summaries and sweep.csv %s", size(e.Total), size(e.Report), size(e.Other))
	}
	return fmt.Sprintf("about %s: timelines %s, .hlog files %s, the report %s, the rest %s", size(e.Total), size(e.Timelines), size(e.Hlogs), size(e.Report), size(e.Other))
}

// maxNameLen is the longest strategy name of p: each row starts with it.
func maxNameLen(p *scenarios.Plan) int {
	n := 0
	for _, s := range p.Strategies {
		n = max(n, len(s.Name))
	}
	return n
}

// peakPerBucket bounds the attempts of one cohort in one 10 ms bucket:
// every client at once (closed and oneshot), or an open workload's
// clients in flight.
func peakPerBucket(p *scenarios.Plan) uint64 {
	if p.Workload.Kind != clients.Open {
		return uint64(max(1, p.Workload.Clients))
	}
	return max(1, inFlight(p))
}

// digits is how many decimal digits n has.
func digits(n uint64) int { return len(strconv.FormatUint(n, 10)) }
