package main

import (
	"fmt"
	"io"
	"time"

	"github.com/dustin/go-humanize"
	"github.com/herdbench/herdbench/clients"
	"github.com/herdbench/herdbench/engine"
	"github.com/herdbench/herdbench/kube"
	"github.com/herdbench/herdbench/scenarios"
	"github.com/spf13/pflag"
)

const k8sHelp = `Usage: herdbench k8s NAME|FILE --shards N --target URL [flags]

Prints the Kubernetes manifest that runs the scenario as N shards on N
pods, for fleets one machine cannot hold (one holds about 10,000 clients):
an Indexed Job (completionMode: Indexed, completions = parallelism = N,
backoffLimit: 0, podReplacementPolicy: Failed), each pod running
'herdbench scenario FILE --shard $(JOB_COMPLETION_INDEX)/N --start-at T0'
with the same CPU and memory requested and limited (Guaranteed), the
scenario as a ConfigMap with the files it names (request bodies, a targets
file: at most 1 MiB in all, mounted beside it as the scenario names them),
and the results on a volume every shard writes to.
T0 is now + --lead: long enough for Kubernetes to schedule every pod and
start it. A shard that is not ready by T0 exits 4 having sent nothing, and
the Job fails at once; nothing is restarted late.

The header says how to apply it, wait for it and merge the shards' results
with 'herdbench merge' (docs/distributed.md has the whole recipe, and one
with ssh for machines outside Kubernetes).

--target is the service every shard sends to (a herdbench proxy in front of
it, or herdbench target); --chaos-control the proxy's control API, whose
clock the shards measure theirs against and whose chaos plan they start at
T0 (off loopback it needs its token: the shards read it from the Secret
--token-secret, key "token"). The image is built from the repository's
Dockerfile.

Every value is checked first (exit 2, naming the flag): --image an image
reference ([registry[:port]/]path[:tag][@digest]), --results-claim and
--token-secret Kubernetes names (RFC 1123), --cpu and --memory Kubernetes
quantities (1500m, 512Mi), --target and --chaos-control http URLs.

Examples:
  herdbench k8s gameday.yaml --shards 10 --target http://chaos-proxy.staging:8090/ \
      --chaos-control http://chaos-proxy.staging:8091 --image registry.example/herdbench:v1 > job.yaml
  kubectl apply -f job.yaml

Flags:
`

func runK8s(args []string, stdout, stderr io.Writer) int {
	o := kube.Options{TokenSecret: kube.DefaultTokenSecret, ClaimSize: kube.DefaultClaimSize}
	var (
		lead  time.Duration
		seed  uint64
		claim string
	)
	fs := pflag.NewFlagSet("k8s", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.IntVar(&o.Shards, "shards", 0, fmt.Sprintf("how many shards (pods), 1 to %d", clients.MaxShards))
	fs.StringVar(&o.Target, "target", "", "the URL every shard sends to (required)")
	fs.StringVar(&o.ChaosControl, "chaos-control", "", "control URL of the herdbench proxy or target in front of the service (its --control-addr): the shards measure their clocks against it and start its chaos plan at T0")
	fs.StringVar(&o.TokenSecret, "token-secret", o.TokenSecret, "the Secret (key \"token\") holding the --chaos-control API's token")
	fs.StringVar(&o.Image, "image", kube.DefaultImage, "the herdbench image the pods run (build it with the repository's Dockerfile)")
	fs.DurationVar(&lead, "lead", kube.DefaultLead, "T0 is now + this: time to apply the manifest and for every pod to be scheduled, pulled and started")
	fs.StringVar(&o.CPU, "cpu", "2", "CPU of each shard, requested and limited alike (a Kubernetes quantity: 2, 1500m)")
	fs.StringVar(&o.Memory, "memory", "", "memory of each shard, requested and limited alike (default: twice herdbench's estimate for a shard, at least 256Mi)")
	fs.StringVar(&claim, "results-claim", "", "an existing ReadWriteMany PersistentVolumeClaim for the results (default: the manifest makes one, "+kube.DefaultClaim+")")
	fs.Uint64Var(&seed, "seed", 0, "root random seed, the same for every shard (default: the scenario's, or a random one)")
	fs.SortFlags = false
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), k8sHelp)
		fs.PrintDefaults()
		fmt.Fprint(fs.Output(), "\nExit codes: 0 ok (the manifest on stdout); 2 bad usage or an invalid scenario.\n")
	}
	if code, done := parseFlags(fs, args, stdout); done {
		return code
	}
	switch {
	case fs.NArg() != 1:
		fmt.Fprintf(stderr, "herdbench k8s: name one scenario (a file or a built-in name), got %d arguments\n", fs.NArg())
		return exitUsage
	case o.Shards < 1 || o.Shards > clients.MaxShards:
		fmt.Fprintf(stderr, "herdbench k8s: --shards %d: give the number of shards, 1 to %d\n", o.Shards, clients.MaxShards)
		return exitUsage
	case o.Target == "":
		fmt.Fprintln(stderr, "herdbench k8s: --target URL is required: the service every shard sends to (a herdbench proxy in front of it, or herdbench target)")
		return exitUsage
	case lead < 10*time.Second || lead > time.Hour:
		fmt.Fprintf(stderr, "herdbench k8s: --lead %s: give 10s to 1h (Kubernetes needs seconds to minutes to start every pod)\n", lead)
		return exitUsage
	}
	// Every value is checked before it is written anywhere: a line break
	// in a value would add YAML documents, a quote break the shell line
	// of the header.
	probe := o
	probe.Claim = claim
	if ps := probe.Problems(); len(ps) > 0 {
		for _, p := range ps {
			fmt.Fprintln(stderr, "herdbench k8s:", p)
		}
		return exitUsage
	}
	// The scenario is checked as a shard will compile it, so that what the
	// pods would refuse is refused here.
	ov := scenarios.Overrides{Target: o.Target, AllowRemote: true, Shard: true}
	if fs.Changed("seed") {
		ov.Seed = &seed
	}
	op, err := scenarios.Open(fs.Arg(0), ov)
	if err != nil {
		fmt.Fprintln(stderr, err)
		return exitUsage
	}
	name, plan := op.Filename, op.Plans[0]
	if plan.Runs > 1 || len(plan.Sweep) > 0 {
		fmt.Fprintf(stderr, "herdbench k8s: %s repeats its run (runs) or sweeps a field (sweep:); a sharded run is one run: set runs: 1 and no sweep\n", name)
		return exitUsage
	}
	// Every shard draws from one root seed: --seed, the file's, or one
	// drawn here, given to every shard.
	o.Scenario, o.File, o.Duration, o.Lead, o.Seed = plan.Name, op.Source, plan.Duration, lead, op.Seed
	if o.Files, err = shippedFiles(op, plan); err != nil {
		fmt.Fprintf(stderr, "herdbench k8s: %s: %v\n", name, err)
		return exitUsage
	}
	if o.Memory == "" {
		share := engine.Share(plan, clients.Part{Index: 0, Of: o.Shards})
		est := engine.EstimateMemory([]*scenarios.Plan{share}, engine.Options{}).Total
		o.Memory = fmt.Sprintf("%dMi", max(256, (2*est+(1<<20)-1)>>20))
	}
	if claim != "" {
		o.Claim, o.Existing = claim, true
	} else {
		o.Claim = kube.DefaultClaim
	}
	o.StartAt = time.Now().Add(lead).UTC().Truncate(time.Second)
	b, err := kube.Manifest(o)
	if err != nil {
		fmt.Fprintln(stderr, "herdbench k8s:", err)
		return exitUsage
	}
	if _, err := stdout.Write(b); err != nil {
		fmt.Fprintln(stderr, "herdbench k8s:", err)
		return exitFailed
	}
	fmt.Fprintf(stderr, "herdbench k8s: %d shards of %s, %s of memory each (%s for the whole run's clients), t = 0 at %s: apply within %s.\n",
		o.Shards, plan.Name, o.Memory, humanize.IBytes(engine.EstimateMemory([]*scenarios.Plan{plan}, engine.Options{}).Total), o.StartAt.Format("2006-01-02T15:04:05Z"), lead)
	return exitOK
}

// shippedFiles reads the files the scenario names, again under the rule
// they were read with, to go with it in the ConfigMap and be mounted
// beside it in the pods.
func shippedFiles(op *scenarios.Opened, plan *scenarios.Plan) ([]kube.File, error) {
	var out []kube.File
	for _, f := range plan.Files {
		data, err := op.ReadFile(f, clients.MaxBody)
		if err != nil {
			return nil, err
		}
		out = append(out, kube.File{Name: f, Data: data})
	}
	return out, nil
}
