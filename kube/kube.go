package kube

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"regexp"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// Options describe the run to print a manifest for.
type Options struct {
	// Scenario is the scenario's name and File its YAML, put in the
	// ConfigMap as written.
	Scenario string
	File     []byte
	// Files are the files the scenario names (request bodies, a targets
	// file and its bodies), put in the ConfigMap beside it and mounted
	// where the scenario finds them in the pod: at their names, relative
	// to the scenario's folder. Together with File they fit in a
	// ConfigMap (MaxConfigMap).
	Files  []File
	Shards int
	// Target is the URL every shard sends to: the proxy in front of the
	// service, or the standalone target.
	Target string
	// ChaosControl, if set, is the control URL of that proxy or target:
	// each shard measures its clock against it and starts its chaos plan
	// at T0. Off loopback the control API needs its token: the shards
	// read it from TokenSecret's key "token".
	ChaosControl string
	TokenSecret  string
	Image        string
	// StartAt is T0, the run's t = 0 for every shard, Lead its distance
	// from when the manifest is printed (the Job must live that long
	// before it runs) and Duration the run's.
	StartAt  time.Time
	Lead     time.Duration
	Duration time.Duration
	// Seed is the run's root seed, given to every shard (--seed).
	Seed uint64
	// CPU and Memory are each shard's, requested and limited alike
	// (Kubernetes' Guaranteed class: no other pod takes the shard's CPU
	// at the instant of a wave), as Kubernetes quantities (2, 500m, 1Gi).
	CPU, Memory string
	// Claim is the PersistentVolumeClaim the shards write their results
	// folders to; the manifest creates it (ReadWriteMany, ClaimSize) unless
	// Existing is set.
	Claim     string
	ClaimSize string
	Existing  bool
}

// File is a file a scenario names, for the pods.
type File struct {
	Name string // relative to the scenario's folder, slash-separated, inside it
	Data []byte
}

// MaxConfigMap is the most a ConfigMap holds (Kubernetes refuses one
// whose data exceed 1 MiB): the scenario and its files, binary ones
// counted as the base64 they are written in.
const MaxConfigMap = 1 << 20

// scenarioKey is the scenario's key in the ConfigMap and its name in the
// pod's folder.
const scenarioKey = "scenario.yaml"

// The defaults of Options' strings.
const (
	DefaultImage       = "ghcr.io/herdbench/herdbench:latest"
	DefaultClaim       = "herdbench-results"
	DefaultClaimSize   = "1Gi"
	DefaultTokenSecret = "herdbench-control-token"
)

// Paths inside a shard's container.
const (
	scenarioDir = "/etc/herdbench"
	resultsDir  = "/results"
	container   = "herdbench"
	// nonRoot is the distroless image's unprivileged user.
	nonRoot = 65532
)

// exitLate is herdbench scenario's exit code for a shard that could not be
// ready by T0: the Job then fails at once, naming the rule.
const exitLate = 4

// ErrOptions is wrapped by Manifest's error for options it cannot print.
var ErrOptions = errors.New("kube")

// Name returns the Job's name: "herdbench-<scenario>-<T0>", lower case,
// short enough that every shard's pod host name (the name, "-" and the
// index) is a DNS label.
func Name(o Options) string {
	stamp := strings.ToLower(o.StartAt.UTC().Format("20060102T150405Z"))
	room := 63 - len("herdbench-") - len("-"+stamp) - len("-"+strconv.Itoa(max(0, o.Shards-1)))
	var b strings.Builder
	for _, r := range strings.ToLower(o.Scenario) {
		switch {
		case r >= 'a' && r <= 'z', r >= '0' && r <= '9':
			b.WriteRune(r)
		default:
			b.WriteByte('-')
		}
	}
	name := strings.Trim(b.String(), "-")
	if len(name) > room {
		name = strings.TrimRight(name[:room], "-")
	}
	if name == "" {
		name = "run"
	}
	return "herdbench-" + name + "-" + stamp
}

// Manifest returns the Kubernetes objects that run o's shards, as YAML
// documents: the scenario's ConfigMap, the results' claim (unless it
// exists) and the Indexed Job, after a header of comments that says how to
// apply it, wait for it and merge the results.
func Manifest(o Options) ([]byte, error) {
	if err := check(o); err != nil {
		return nil, err
	}
	name := Name(o)
	labels := map[string]string{"app.kubernetes.io/name": "herdbench", "app.kubernetes.io/instance": name}
	var buf bytes.Buffer
	buf.WriteString(header(o, name))
	docs := []any{configMap(o, name, labels)}
	if !o.Existing {
		docs = append(docs, claim(o, labels))
	}
	docs = append(docs, job(o, name, labels))
	for _, d := range docs {
		buf.WriteString("---\n")
		enc := yaml.NewEncoder(&buf)
		enc.SetIndent(2)
		if err := enc.Encode(d); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
		if err := enc.Close(); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrOptions, err)
		}
	}
	return buf.Bytes(), nil
}

func check(o Options) error {
	var problems []string
	if o.Shards < 1 {
		problems = append(problems, fmt.Sprintf("%d shards; give 1 or more", o.Shards))
	}
	if o.Target == "" {
		problems = append(problems, "no target URL")
	}
	if o.Image == "" || o.CPU == "" || o.Memory == "" || o.Claim == "" || (!o.Existing && o.ClaimSize == "") {
		problems = append(problems, "an empty image, CPU, memory or claim")
	}
	if o.StartAt.IsZero() || o.Duration <= 0 {
		problems = append(problems, "no start instant or duration")
	}
	for _, p := range o.Problems() {
		problems = append(problems, p.Error())
	}
	problems = append(problems, filesProblems(o)...)
	if len(problems) > 0 {
		return fmt.Errorf("%w: %s", ErrOptions, strings.Join(problems, "; "))
	}
	return nil
}

// ActiveDeadline is how long the Job may run from its creation: the lead
// to T0, the run, and a margin for writing the results; Kubernetes then
// stops it, so nothing runs on forever.
func ActiveDeadline(o Options) time.Duration {
	return (o.Lead + o.Duration + 5*time.Minute).Round(time.Second)
}

func header(o Options, name string) string {
	merge := mergeCommand(o, name)
	lines := []string{
		fmt.Sprintf("herdbench k8s: scenario %s as %d shards (one Indexed Job), t = 0 at %s.", commentValue(o.Scenario), o.Shards, o.StartAt.UTC().Format("2006-01-02T15:04:05.000Z")),
		"Apply it at once: a shard not running by then exits 4, sending nothing, and the Job fails.",
		"  kubectl apply -f THIS_FILE",
		fmt.Sprintf("  kubectl wait --for=condition=complete job/%s --timeout=%ds", name, int(ActiveDeadline(o).Seconds())),
		fmt.Sprintf("Each shard writes its results folder to %s/%s on the claim %s; then merge them there:", resultsDir, name, commentValue(o.Claim)),
		"  " + merge,
		"docs/distributed.md: fetching the merged folder, and what each field is for.",
	}
	var b strings.Builder
	for _, l := range lines {
		if strings.ContainsFunc(l, func(r rune) bool { return r < ' ' || r > '~' }) {
			// Never a line break in a comment: what follows it would be
			// YAML. Options.Problems refuses such values; this is the
			// last guard.
			l = quote(l)
		}
		b.WriteString("# " + l + "\n")
	}
	return b.String()
}

// commentValue writes s into a comment: as it is when it is made of the
// characters of names, paths and URLs, else quoted.
func commentValue(s string) string {
	if plain.MatchString(s) {
		return s
	}
	return quote(s)
}

var plain = regexp.MustCompile(`^[A-Za-z0-9_.:/@+=,-]{1,200}$`)

// shellWords joins argv into one line for a POSIX shell: each word as it
// is when it has no character a shell reads, else in single quotes, where
// each single quote of its own ends the quoting, is escaped with a
// backslash and reopens it; of a --flag=value word, the value alone.
func shellWords(argv ...string) string {
	words := make([]string, len(argv))
	for i, w := range argv {
		prefix := ""
		if f, _, ok := strings.Cut(w, "="); ok && strings.HasPrefix(f, "--") && shellSafe.MatchString(f) {
			prefix, w = f+"=", w[len(f)+1:]
		}
		if w == "" || !shellSafe.MatchString(w) {
			w = "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
		}
		words[i] = prefix + w
	}
	return strings.Join(words, " ")
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_@%+=:,./-]+$`)

// kubeArg escapes a value for a container's args, where Kubernetes expands
// $(VAR) from the container's environment (which holds the control token):
// "$$" is a literal "$".
func kubeArg(s string) string { return strings.ReplaceAll(s, "$", "$$") }

// mergeCommand is the one line that merges the shards' folders, in a pod
// that mounts the results' claim.
func mergeCommand(o Options, name string) string {
	pod := map[string]any{
		"apiVersion": "v1",
		"spec": map[string]any{
			"containers": []any{map[string]any{
				"name":         container,
				"image":        o.Image,
				"args":         []string{"merge", resultsDir + "/" + name, "--out", resultsDir + "/" + name, "--no-png"},
				"volumeMounts": []any{map[string]any{"name": "results", "mountPath": resultsDir}},
			}},
			"securityContext": map[string]any{"runAsNonRoot": true, "runAsUser": nonRoot, "fsGroup": nonRoot},
			"volumes":         []any{map[string]any{"name": "results", "persistentVolumeClaim": map[string]any{"claimName": o.Claim}}},
		},
	}
	b, _ := json.Marshal(pod)
	return shellWords("kubectl", "run", name+"-merge", "--rm", "-i", "--restart=Never", "--image="+o.Image, "--overrides="+string(b))
}

type meta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels,omitempty"`
}

type object struct {
	APIVersion string `yaml:"apiVersion"`
	Kind       string `yaml:"kind"`
	Metadata   meta   `yaml:"metadata"`
	Data       any    `yaml:"data,omitempty"`
	Spec       any    `yaml:"spec,omitempty"`
}

func configMap(o Options, name string, labels map[string]string) configMapObject {
	data := map[string]string{scenarioKey: string(o.File)}
	binary := map[string]string{}
	for i, f := range o.Files {
		if utf8.Valid(f.Data) {
			data[fileKey(i, f.Name)] = string(f.Data)
		} else {
			binary[fileKey(i, f.Name)] = base64.StdEncoding.EncodeToString(f.Data)
		}
	}
	cm := configMapObject{APIVersion: "v1", Kind: "ConfigMap", Metadata: meta{Name: name + "-scenario", Labels: labels}, Data: data}
	if len(binary) > 0 {
		cm.BinaryData = binary
	}
	return cm
}

// configMapObject is a ConfigMap: its binaryData beside its data.
type configMapObject struct {
	APIVersion string            `yaml:"apiVersion"`
	Kind       string            `yaml:"kind"`
	Metadata   meta              `yaml:"metadata"`
	Data       map[string]string `yaml:"data"`
	BinaryData map[string]string `yaml:"binaryData,omitempty"` // base64
}

// fileKey is the ConfigMap's key of the scenario's file i, named name:
// its number and the letters of its name a key may hold.
func fileKey(i int, name string) string {
	base := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '-' || r == '_' || r == '.' {
			return r
		}
		return '_'
	}, path.Base(name))
	if len(base) > 200 {
		base = base[len(base)-200:]
	}
	return fmt.Sprintf("file-%d-%s", i+1, base)
}

// scenarioVolume is the volume the pod reads the scenario from: the
// ConfigMap whole, or, when the scenario names files, each key at the
// path the scenario names it by.
func scenarioVolume(o Options, name string) map[string]any {
	cm := map[string]any{"name": name + "-scenario"}
	if len(o.Files) > 0 {
		items := []any{map[string]string{"key": scenarioKey, "path": scenarioKey}}
		for i, f := range o.Files {
			items = append(items, map[string]string{"key": fileKey(i, f.Name), "path": f.Name})
		}
		cm["items"] = items
	}
	return map[string]any{"name": "scenario", "configMap": cm}
}

// filesProblems says what keeps o's files from the pods: a name that is
// not a path inside the scenario's folder or that is the scenario's own,
// or more than a ConfigMap holds.
func filesProblems(o Options) []string {
	var out []string
	total := len(o.File)
	for _, f := range o.Files {
		switch {
		case !fs.ValidPath(f.Name) || f.Name == ".":
			out = append(out, fmt.Sprintf("the scenario's file %s is not a path inside its folder", quote(f.Name)))
		case f.Name == scenarioKey:
			out = append(out, fmt.Sprintf("the scenario names a file %s, the name the pods give the scenario itself; rename that file", scenarioKey))
		}
		if utf8.Valid(f.Data) {
			total += len(f.Data)
		} else {
			total += base64.StdEncoding.EncodedLen(len(f.Data))
		}
	}
	if total > MaxConfigMap {
		out = append(out, fmt.Sprintf("the scenario and the %s it names hold %s, and a ConfigMap holds at most %s: the pods would not get them; make the bodies smaller, or build them into an image of your own", spokenFiles(len(o.Files)), mib(total), mib(MaxConfigMap)))
	}
	return out
}

func spokenFiles(n int) string {
	if n == 1 {
		return "file"
	}
	return fmt.Sprintf("%d files", n)
}

func mib(n int) string { return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20)) }

func claim(o Options, labels map[string]string) object {
	return object{APIVersion: "v1", Kind: "PersistentVolumeClaim", Metadata: meta{Name: o.Claim, Labels: map[string]string{"app.kubernetes.io/name": "herdbench"}},
		Spec: map[string]any{
			// Every shard, on whatever node, writes to it at once.
			"accessModes": []string{"ReadWriteMany"},
			"resources":   map[string]any{"requests": map[string]string{"storage": o.ClaimSize}},
		}}
}

func job(o Options, name string, labels map[string]string) object {
	n := o.Shards
	args := []string{
		"scenario", scenarioDir + "/" + scenarioKey,
		"--shard", fmt.Sprintf("$(JOB_COMPLETION_INDEX)/%d", n),
		"--start-at", o.StartAt.UTC().Format("2006-01-02T15:04:05.000Z"),
		"--seed", strconv.FormatUint(o.Seed, 10),
		"--target", kubeArg(o.Target),
		// Inside a cluster the service is never on the pod's loopback.
		"--allow-remote",
		"--out", resultsDir + "/" + name,
		"--quiet", "--no-png",
	}
	env := []any{map[string]any{
		// The Job controller sets it too; declared here so that the
		// arguments' $(JOB_COMPLETION_INDEX) is expanded.
		"name":      "JOB_COMPLETION_INDEX",
		"valueFrom": map[string]any{"fieldRef": map[string]string{"fieldPath": "metadata.annotations['batch.kubernetes.io/job-completion-index']"}},
	}}
	if o.ChaosControl != "" {
		args = append(args, "--chaos-control", kubeArg(o.ChaosControl))
		env = append(env, map[string]any{
			"name":      "HERDBENCH_CONTROL_TOKEN",
			"valueFrom": map[string]any{"secretKeyRef": map[string]string{"name": o.TokenSecret, "key": "token"}},
		})
	}
	resources := map[string]string{"cpu": o.CPU, "memory": o.Memory}
	pod := map[string]any{
		"restartPolicy":                 "Never",
		"terminationGracePeriodSeconds": 30, // SIGTERM: a shard writes what it recorded, marked partial
		"securityContext": map[string]any{
			"runAsNonRoot": true, "runAsUser": nonRoot, "runAsGroup": nonRoot, "fsGroup": nonRoot,
			"seccompProfile": map[string]string{"type": "RuntimeDefault"},
		},
		// One shard per machine where the cluster allows it: a machine
		// holds about 10,000 clients.
		"topologySpreadConstraints": []any{map[string]any{
			"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
			"labelSelector": map[string]any{"matchLabels": map[string]string{"app.kubernetes.io/instance": name}},
		}},
		"containers": []any{map[string]any{
			"name":  container,
			"image": o.Image,
			"args":  args,
			"env":   env,
			"resources": map[string]any{
				"requests": resources,
				"limits":   resources,
			},
			"securityContext": map[string]any{
				"allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true,
				"capabilities": map[string]any{"drop": []string{"ALL"}},
			},
			"volumeMounts": []any{
				map[string]any{"name": "scenario", "mountPath": scenarioDir, "readOnly": true},
				map[string]any{"name": "results", "mountPath": resultsDir},
			},
		}},
		"volumes": []any{
			scenarioVolume(o, name),
			map[string]any{"name": "results", "persistentVolumeClaim": map[string]string{"claimName": o.Claim}},
		},
	}
	return object{APIVersion: "batch/v1", Kind: "Job", Metadata: meta{Name: name, Labels: labels},
		Spec: jobSpec{
			CompletionMode: "Indexed", Completions: n, Parallelism: n,
			// A shard that fails is not run again: T0 has passed, and a
			// shard started late would not be the run's.
			BackoffLimit:         0,
			PodReplacementPolicy: "Failed",
			PodFailurePolicy: map[string]any{"rules": []any{map[string]any{
				"action":      "FailJob",
				"onExitCodes": map[string]any{"containerName": container, "operator": "In", "values": []int{exitLate}},
			}}},
			ActiveDeadlineSeconds:   int(ActiveDeadline(o).Seconds()),
			TTLSecondsAfterFinished: 24 * 60 * 60,
			Template: map[string]any{
				"metadata": map[string]any{"labels": labels},
				"spec":     pod,
			},
		}}
}

// jobSpec keeps the Job's fields in the order a reader looks for them.
type jobSpec struct {
	CompletionMode          string `yaml:"completionMode"`
	Completions             int    `yaml:"completions"`
	Parallelism             int    `yaml:"parallelism"`
	BackoffLimit            int    `yaml:"backoffLimit"`
	PodReplacementPolicy    string `yaml:"podReplacementPolicy"`
	PodFailurePolicy        any    `yaml:"podFailurePolicy"`
	ActiveDeadlineSeconds   int    `yaml:"activeDeadlineSeconds"`
	TTLSecondsAfterFinished int    `yaml:"ttlSecondsAfterFinished"`
	Template                any    `yaml:"template"`
}

// DefaultLead is T0's distance from now by default: time to apply the
// manifest, schedule every pod, pull the image and start.
const DefaultLead = 2 * time.Minute
