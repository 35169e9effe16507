// Command reportpeak measures what 'herdbench report' of a long run's
// results folder costs: its peak RSS, wall and CPU time, with the load
// average beside each. It makes the folder once, with this tree's build,
// from a simulated run long enough for a timeline.csv of hundreds of
// megabytes (the outage, one cohort, 13.5 hours by default: about 180 MB),
// then draws its report with each build in turn.
//
//	go run ./bench/reportpeak                          # this tree, 3 rounds
//	go run ./bench/reportpeak -baseline /tmp/hb-main   # and another build, interleaved (before/after)
//	go run ./bench/reportpeak -duration 4h -rounds 1
//
// Each round runs every build once, the builds' order alternating from
// round to round. herdbench is built from this tree (run from the
// repository's root) or -herdbench PATH. Nothing goes over the network;
// every run stops by itself. Its closing table is also written to
// docs/measured/reportpeak.json and .md, with the date, machine, load and
// command (-record "" writes none), and docs/performance.md's current
// figures are synced from them; run it from the repository's root.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
)

type sample struct{ wall, cpu, rss float64 }

func main() {
	herdbench := flag.String("herdbench", "", "the herdbench binary to measure (default: built from this tree)")
	baseline := flag.String("baseline", "", "another herdbench binary to measure beside it, interleaved")
	duration := flag.Duration("duration", 13*time.Hour+30*time.Minute, "the simulated run whose results folder is drawn (at most 24h)")
	rounds := flag.Int("rounds", 3, "rounds: each draws the report with every build once")
	rec := measured.Flag()
	flag.Parse()
	if err := run(*herdbench, *baseline, *duration, *rounds, rec); err != nil {
		fmt.Fprintln(os.Stderr, "reportpeak:", err)
		os.Exit(2)
	}
}

func run(herdbench, baseline string, duration time.Duration, rounds int, rec *measured.Recorder) error {
	if rounds < 1 || duration <= 0 || duration > 24*time.Hour {
		return fmt.Errorf("give -rounds of at least 1 and a -duration up to 24h")
	}
	dir, bin, remove, err := cli.Workdir("reportpeak-", herdbench)
	if err != nil {
		return err
	}
	defer remove()
	folder, err := makeFolder(bin, dir, duration)
	if err != nil {
		return err
	}
	st, err := os.Stat(filepath.Join(folder, "timeline.csv"))
	if err != nil {
		return err
	}
	fmt.Printf("%s: herdbench scenario outage --sim --duration %s --strategies no-jitter, timeline.csv %.0f MB\n",
		time.Now().UTC().Format("2006-01-02 15:04 UTC"), duration, float64(st.Size())/1e6)
	builds := []string{bin}
	names := map[string]string{bin: "this"}
	if baseline != "" {
		builds = append(builds, baseline)
		names[baseline] = "baseline"
	}
	got := map[string][]sample{}
	for r := range rounds {
		order := builds
		if r%2 == 1 && len(builds) == 2 {
			order = []string{builds[1], builds[0]}
		}
		for _, b := range order {
			load := measured.Load()
			s, err := measure(b, folder)
			if err != nil {
				return fmt.Errorf("%s: %w", names[b], err)
			}
			got[names[b]] = append(got[names[b]], s)
			fmt.Printf("round %d  %-8s  herdbench report --no-png  wall %6.2f s  CPU %6.2f s  peak RSS %7.0f MiB  load %.2f\n",
				r+1, names[b], s.wall, s.cpu, s.rss, load)
		}
	}
	t := measured.Table{Name: "reportpeak", Title: "What herdbench report costs on a long run's results folder: peak RSS, wall and CPU time",
		Columns: []string{"build", "rounds", "wall s", "CPU s", "peak RSS MiB"},
		Notes: []string{fmt.Sprintf("The folder of herdbench scenario outage --sim --duration %s --strategies no-jitter --seed 7: timeline.csv %.0f MB.", duration, float64(st.Size())/1e6),
			"herdbench report DIR --no-png; medians over the rounds, the builds' order alternating; the kernel's accounting of the child."}}
	for _, b := range builds {
		v := got[names[b]]
		t.Rows = append(t.Rows, []string{names[b], fmt.Sprint(len(v)),
			fmt.Sprintf("%.2f", med(v, func(s sample) float64 { return s.wall })), fmt.Sprintf("%.2f", med(v, func(s sample) float64 { return s.cpu })),
			fmt.Sprintf("%.0f", med(v, func(s sample) float64 { return s.rss }))})
	}
	return rec.Finish("reportpeak", t, os.Stdout)
}

// makeFolder writes the results folder of the simulated run in dir and
// returns its path.
func makeFolder(bin, dir string, duration time.Duration) (string, error) {
	out := filepath.Join(dir, "runs")
	cmd := exec.Command(bin, "scenario", "outage", "--sim", "--duration", duration.String(), "--strategies", "no-jitter", "--seed", "7", "--no-png", "-q", "--out", out)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("making the results folder: %w", err)
	}
	entries, err := os.ReadDir(out)
	if err != nil || len(entries) != 1 {
		return "", fmt.Errorf("making the results folder: %d entries in %s (%v)", len(entries), out, err)
	}
	return filepath.Join(out, entries[0].Name()), nil
}

// measure draws the report of folder with bin and returns its wall time,
// its CPU time (user plus system) and its peak RSS, from the kernel's
// accounting of the child.
func measure(bin, folder string) (sample, error) {
	cmd := exec.Command(bin, "report", folder, "--no-png")
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return sample{}, err
	}
	wall := time.Since(start)
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	cpu := time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	return sample{wall: wall.Seconds(), cpu: cpu.Seconds(), rss: float64(ru.Maxrss) / 1024}, nil
}

func med(v []sample, f func(sample) float64) float64 {
	x := make([]float64, len(v))
	for i, s := range v {
		x[i] = f(s)
	}
	return stats.Median(x)
}
