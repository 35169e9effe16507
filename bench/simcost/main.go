// Command simcost measures what the simulator costs a user: the wall time,
// CPU time and peak RSS of herdbench's own runs in virtual time, through the
// real CLI (results folder included), with the load average beside each.
//
//	go run ./bench/simcost                          # the 1M-client outage and the AWS sweep, 5 rounds
//	go run ./bench/simcost -baseline /tmp/hb-main   # and another build, interleaved (before/after)
//	go run ./bench/simcost -runs ten-million -rounds 1
//
// The runs (-runs, comma-separated):
//
//	million      herdbench scenario outage --sim --clients 1000000 -q
//	sweep        herdbench scenario aws-contention --sim --runs 100 --clients 10,20,...,190 -q
//	ten-million  herdbench scenario outage --sim --clients 10000000 --strategies full-jitter -q
//
// Each round runs every run of every build once, the builds' order
// alternating from round to round, so a busy machine's swings fall on both.
// It prints each run and, at the end, the medians per run and build, and
// the ratio of this tree's median wall time to the baseline's. herdbench is
// built from this tree (run from the repository's root) or -herdbench PATH.
// Nothing goes over the network; every run stops by itself.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"

	"github.com/herdbench/herdbench/bench/internal/cli"
	"github.com/herdbench/herdbench/bench/internal/measured"
	"github.com/herdbench/herdbench/bench/internal/stats"
)

var runs = map[string][]string{
	"million":     {"scenario", "outage", "--sim", "--clients", "1000000", "-q"},
	"sweep":       {"scenario", "aws-contention", "--sim", "--runs", "100", "--clients", "10,20,30,40,50,60,70,80,90,100,110,120,130,140,150,160,170,180,190", "-q"},
	"ten-million": {"scenario", "outage", "--sim", "--clients", "10000000", "--strategies", "full-jitter", "-q"},
}

type sample struct{ wall, cpu, rss float64 }

func main() {
	herdbench := flag.String("herdbench", "", "the herdbench binary to measure (default: built from this tree)")
	baseline := flag.String("baseline", "", "another herdbench binary to measure beside it, interleaved")
	which := flag.String("runs", "million,sweep", "the runs, comma-separated: million, sweep, ten-million")
	rounds := flag.Int("rounds", 5, "rounds: each runs every run of every build once")
	rec := measured.Flag()
	flag.Parse()
	if err := run(*herdbench, *baseline, strings.Split(*which, ","), *rounds, rec); err != nil {
		fmt.Fprintln(os.Stderr, "simcost:", err)
		os.Exit(2)
	}
}

func run(herdbench, baseline string, which []string, rounds int, rec *measured.Recorder) error {
	for _, w := range which {
		if runs[w] == nil {
			return fmt.Errorf("-runs: no run %q (million, sweep, ten-million)", w)
		}
	}
	if rounds < 1 {
		return fmt.Errorf("-rounds %d: at least 1", rounds)
	}
	dir, bin, remove, err := cli.Workdir("simcost-", herdbench)
	if err != nil {
		return err
	}
	defer remove()
	builds := []string{bin}
	names := map[string]string{bin: "this"}
	if baseline != "" {
		builds = append(builds, baseline)
		names[baseline] = "baseline"
	}
	got := map[string][]sample{}
	for r := 0; r < rounds; r++ {
		order := builds
		if r%2 == 1 && len(builds) == 2 {
			order = []string{builds[1], builds[0]}
		}
		for _, w := range which {
			for _, b := range order {
				load := measured.Load()
				s, err := measure(b, runs[w], dir)
				if err != nil {
					return fmt.Errorf("%s %s: %w", names[b], w, err)
				}
				key := w + " " + names[b]
				got[key] = append(got[key], s)
				fmt.Printf("round %d  %-11s %-8s  wall %6.2f s  CPU %6.2f s  peak RSS %7.0f MiB  load %.2f\n",
					r+1, w, names[b], s.wall, s.cpu, s.rss, load)
			}
		}
	}
	fmt.Println()
	t := measured.Table{Name: "simcost", Title: "What the simulator costs a user: wall time, CPU and peak RSS of runs in virtual time through the CLI",
		Columns: []string{"run", "build", "runs", "wall s", "CPU s", "peak RSS MiB"},
		Notes:   []string{"Medians over the rounds; each round runs every run of every build once, the builds' order alternating."}}
	wall := func(s sample) float64 { return s.wall }
	for _, w := range which {
		for _, b := range builds {
			v := got[w+" "+names[b]]
			m := [3]float64{med(v, wall), med(v, func(s sample) float64 { return s.cpu }), med(v, func(s sample) float64 { return s.rss })}
			fmt.Printf("median of %d  %-11s %-8s  wall %6.2f s  CPU %6.2f s  peak RSS %7.0f MiB\n", len(v), w, names[b], m[0], m[1], m[2])
			t.Rows = append(t.Rows, []string{w, names[b], fmt.Sprint(len(v)), fmt.Sprintf("%.2f", m[0]), fmt.Sprintf("%.2f", m[1]), fmt.Sprintf("%.0f", m[2])})
		}
		if baseline != "" {
			r := med(got[w+" this"], wall) / med(got[w+" baseline"], wall)
			fmt.Printf("             %-11s this/baseline wall %.2f\n", w, r)
			t.Notes = append(t.Notes, fmt.Sprintf("%s: this build's median wall time %.2f of the baseline's.", w, r))
		}
	}
	for _, w := range which {
		t.Notes = append(t.Notes, w+": herdbench "+strings.Join(runs[w], " ")+".")
	}
	md, err := rec.Write("simcost", t)
	if md != "" {
		fmt.Println("figures:", md)
	}
	return err
}

// measure runs bin with args, its results folder in dir (removed after),
// and returns its wall time, its CPU time (user plus system) and its peak
// RSS, from the kernel's accounting of the child.
func measure(bin string, args []string, dir string) (sample, error) {
	out, err := os.MkdirTemp(dir, "out-")
	if err != nil {
		return sample{}, err
	}
	defer os.RemoveAll(out)
	cmd := exec.Command(bin, append(args, "--out", out)...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	// 3: a threshold failed (a million clients are not the outage's 500,
	// so its claims need not hold); the run is measured all the same.
	if err := cmd.Run(); err != nil && (cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 3) {
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
