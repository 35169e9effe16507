package kube

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/internal/golden"
	"go.yaml.in/yaml/v3"
)

// example is the manifest of the golden files.
func example(shards int, control string) Options {
	return Options{
		Scenario: "gameday", File: []byte("name: gameday\nduration: 30s\nworkload: {kind: closed, clients: 30000}\nstrategies:\n  - {name: ours, backoff: full}\n"),
		Shards: shards, Target: "http://chaos-proxy.staging.svc:8090/", ChaosControl: control, TokenSecret: DefaultTokenSecret,
		Image: DefaultImage, StartAt: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), Lead: DefaultLead, Duration: 30 * time.Second, Seed: 7,
		CPU: "2", Memory: "1Gi", Claim: DefaultClaim, ClaimSize: DefaultClaimSize,
	}
}

// TestManifestGolden: the manifest of a 3-shard run, with and without a
// chaos control, is the golden file (go test ./kube -update rewrites it).
func TestManifestGolden(t *testing.T) {
	for _, c := range []struct {
		file string
		o    Options
	}{
		{"gameday-3.yaml", example(3, "http://chaos-proxy.staging.svc:8091")},
		{"gameday-2-no-control.yaml", func() Options { o := example(2, ""); o.Existing, o.Claim = true, "team-results"; return o }()},
		{"gameday-2-files.yaml", func() Options {
			o := example(2, "")
			o.File = []byte("name: gameday\nduration: 30s\ntargets: traffic/targets.txt\nstrategies:\n  - {name: ours, backoff: full, requests: [{method: PUT, path: /b, body: \"@blob.bin\"}]}\n")
			o.Files = []File{
				{Name: "traffic/targets.txt", Data: []byte("POST http://x/login\n@bodies/login.json\n")},
				{Name: "traffic/bodies/login.json", Data: []byte(`{"user":"u"}`)},
				{Name: "blob.bin", Data: []byte{0xff, 0xfe, 0x00, 0x80}},
			}
			return o
		}()},
	} {
		got, err := Manifest(c.o)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", c.file), got)
	}
}

// TestManifestSays: what the issue asks of the Job, read back from the
// YAML: an Indexed Job of N completions and N in parallel, no retries,
// pods replaced only once failed, the same CPU and memory requested and
// limited, the shard index from JOB_COMPLETION_INDEX, T0 on every shard.
func TestManifestSays(t *testing.T) {
	for n := 1; n <= 8; n++ {
		b, err := Manifest(example(n, "http://p:8091"))
		if err != nil {
			t.Fatal(err)
		}
		docs := strings.Split(string(b), "\n---\n")
		var job struct {
			Kind string
			Spec struct {
				CompletionMode       string `yaml:"completionMode"`
				Completions          int
				Parallelism          int
				BackoffLimit         *int   `yaml:"backoffLimit"`
				PodReplacementPolicy string `yaml:"podReplacementPolicy"`
				Template             struct {
					Spec struct {
						Containers []struct {
							Args      []string
							Env       []struct{ Name string }
							Resources struct{ Requests, Limits map[string]string }
						}
					}
				}
			}
		}
		if err := yaml.Unmarshal([]byte(docs[len(docs)-1]), &job); err != nil {
			t.Fatal(err)
		}
		s := job.Spec
		c := s.Template.Spec.Containers[0]
		args := strings.Join(c.Args, " ")
		if job.Kind != "Job" || s.CompletionMode != "Indexed" || s.Completions != n || s.Parallelism != n || s.BackoffLimit == nil || *s.BackoffLimit != 0 ||
			s.PodReplacementPolicy != "Failed" || fmt.Sprint(c.Resources.Requests) != fmt.Sprint(c.Resources.Limits) || c.Resources.Limits["cpu"] != "2" ||
			!strings.Contains(args, fmt.Sprintf("--shard $(JOB_COMPLETION_INDEX)/%d", n)) || !strings.Contains(args, "--start-at 2026-12-01T10:30:00.000Z") ||
			c.Env[0].Name != "JOB_COMPLETION_INDEX" {
			t.Errorf("N = %d: %+v", n, job)
		}
	}
	if _, err := Manifest(Options{}); !errors.Is(err, ErrOptions) {
		t.Errorf("empty options: %v", err)
	}
}

// TestNameFitsAHostName: however long the scenario's name, every shard's
// pod host name (the Job's name, "-", the index) is a DNS label.
func TestNameFitsAHostName(t *testing.T) {
	o := example(10000, "")
	o.Scenario = strings.Repeat("Very_Long.Name", 10)
	name := Name(o)
	if host := name + "-9999"; len(host) > 63 || strings.ContainsAny(host, "_.ABCDEFGHIJKLMNOPQRSTUVWXYZ") || strings.Contains(host, "--") {
		t.Errorf("host name %q (%d bytes)", host, len(host))
	}
}

// herdbench k8s's refusal of a --target naming a user quoted the URL
// whole, password included, into the terminal and CI's log.
func TestURLProblemsNeverQuoteAPassword(t *testing.T) {
	o := Options{Target: "http://alice:pw-s3cret@proxy.staging.svc:8090/", ChaosControl: "http://bob:pw-s3cret@proxy.staging.svc:8091"}
	ps := o.Problems()
	if len(ps) != 2 {
		t.Fatalf("%d problems, want 2: %v", len(ps), ps)
	}
	for _, p := range ps {
		if msg := p.Error(); strings.Contains(msg, "s3cret") || !strings.Contains(msg, ":xxxxx@") || !strings.Contains(msg, "names a user") {
			t.Errorf("%s", msg)
		}
	}
}

// TestFilesTheConfigMapCannotHold: files beyond a ConfigMap's 1 MiB (a
// binary one counted as its base64), a name that is not a path inside the
// scenario's folder, or one that is the scenario's own, are refused
// before anything is printed.
func TestFilesTheConfigMapCannotHold(t *testing.T) {
	for _, c := range []struct {
		files []File
		want  string
	}{
		{[]File{{Name: "big.json", Data: make([]byte, MaxConfigMap)}}, "a ConfigMap holds at most 1.0 MiB"},
		{[]File{{Name: "big.bin", Data: append([]byte{0xff}, make([]byte, 800<<10)...)}}, "hold 1.0 MiB, and a ConfigMap"},
		{[]File{{Name: "../secret", Data: []byte("x")}}, "is not a path inside its folder"},
		{[]File{{Name: "/etc/passwd", Data: []byte("x")}}, "is not a path inside its folder"},
		{[]File{{Name: "scenario.yaml", Data: []byte("x")}}, "the name the pods give the scenario itself"},
	} {
		o := example(2, "")
		o.Files = c.files
		if _, err := Manifest(o); !errors.Is(err, ErrOptions) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.files[0].Name, err, c.want)
		}
	}
	o := example(2, "")
	o.Files = []File{{Name: "a.json", Data: make([]byte, MaxConfigMap-len(o.File))}}
	if _, err := Manifest(o); err != nil {
		t.Errorf("files that fill the ConfigMap exactly: %v", err)
	}
}
