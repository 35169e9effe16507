package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/herdbench/herdbench/scenarios"
)

// shipped is a scenario that names files: a targets file in a subfolder
// (its body beside it) and a binary body.
const shipped = `name: shipped
duration: 10s
workload: {kind: closed, clients: 10, think: 100ms}
targets: traffic/targets.txt
strategies:
  - {name: a, backoff: full, timeout: 1s}
  - name: b
    backoff: full
    timeout: 1s
    requests:
      - {method: PUT, path: /blob, body: "@blob.bin"}
`

// TestK8sShipsTheScenarioFiles: herdbench k8s put only scenario.yaml in
// the ConfigMap, so a scenario with request bodies or a targets file made
// every shard exit 2 at T0, after the Job was applied. The files it names
// now go in the ConfigMap, mounted where the scenario finds them: the pod's
// folder, rebuilt here from the manifest alone, opens as a shard opens it.
func TestK8sShipsTheScenarioFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string][]byte{
		"s.yaml":                    []byte(shipped),
		"traffic/targets.txt":       []byte("POST http://x/login\n@bodies/login.json\n\nGET http://x/users/1\n"),
		"traffic/bodies/login.json": []byte(`{"user":"u"}`),
		"blob.bin":                  {0xff, 0xfe, 0x00, 0x80},
	}
	for name, b := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	code, stdout, stderr := runCLI(t, "k8s", filepath.Join(dir, "s.yaml"), "--shards", "2", "--target", "http://proxy.staging:8090/")
	if code != exitOK {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	pod := podFolder(t, stdout)
	op, err := scenarios.Open(filepath.Join(pod, "scenario.yaml"), scenarios.Overrides{Target: "http://proxy.staging:8090/", AllowRemote: true, Shard: true})
	if err != nil {
		t.Fatalf("the pod's scenario: %v", err)
	}
	p := op.Plans[0]
	if got := string(p.Strategies[0].Requests.Requests[0].Body); got != `{"user":"u"}` {
		t.Errorf("the targets file's body in the pod: %q", got)
	}
	if got := p.Strategies[1].Requests.Requests[0].Body; string(got) != string(files["blob.bin"]) {
		t.Errorf("the binary body in the pod: %q", got)
	}
}

// podFolder lays out, in a folder of its own, what the manifest's pods
// see at the scenario's mount: each key of its ConfigMap at the path its
// volume gives it (binaryData decoded), as Kubernetes projects them.
func podFolder(t *testing.T, manifest string) string {
	t.Helper()
	var cm struct {
		Data       map[string]string
		BinaryData map[string]string `yaml:"binaryData"`
	}
	var items []struct{ Key, Path string }
	mount := ""
	dec := yaml.NewDecoder(strings.NewReader(manifest))
	for {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			break
		}
		b, _ := yaml.Marshal(doc)
		switch doc["kind"] {
		case "ConfigMap":
			if err := yaml.Unmarshal(b, &cm); err != nil {
				t.Fatal(err)
			}
		case "Job":
			var job struct {
				Spec struct {
					Template struct {
						Spec struct {
							Containers []struct {
								Args         []string
								VolumeMounts []struct {
									Name      string
									MountPath string `yaml:"mountPath"`
								} `yaml:"volumeMounts"`
							}
							Volumes []struct {
								Name      string
								ConfigMap *struct{ Items []struct{ Key, Path string } } `yaml:"configMap"`
							}
						}
					}
				}
			}
			if err := yaml.Unmarshal(b, &job); err != nil {
				t.Fatal(err)
			}
			spec := job.Spec.Template.Spec
			for _, v := range spec.Volumes {
				if v.ConfigMap != nil {
					items = v.ConfigMap.Items
				}
			}
			for _, m := range spec.Containers[0].VolumeMounts {
				if m.Name == "scenario" {
					mount = m.MountPath
				}
			}
			if args := strings.Join(spec.Containers[0].Args, " "); !strings.Contains(args, "scenario "+mount+"/scenario.yaml ") {
				t.Errorf("the pods run %q, not the scenario at %s/scenario.yaml", args, mount)
			}
		}
	}
	if len(items) == 0 { // the whole ConfigMap, each key a file
		for k := range cm.Data {
			items = append(items, struct{ Key, Path string }{k, k})
		}
	}
	pod := t.TempDir()
	for _, it := range items {
		data, ok := []byte(cm.Data[it.Key]), true
		if _, text := cm.Data[it.Key]; !text {
			data, ok = nil, false
			if s, bin := cm.BinaryData[it.Key]; bin {
				var err error
				if data, err = base64.StdEncoding.DecodeString(s); err != nil {
					t.Fatal(err)
				}
				ok = true
			}
		}
		if !ok || !filepath.IsLocal(it.Path) {
			t.Fatalf("volume item %+v: no such key, or not a path inside the mount", it)
		}
		p := filepath.Join(pod, filepath.FromSlash(it.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return pod
}

// TestK8sRefusesFilesAConfigMapCannotHold: files the ConfigMap cannot
// hold (more than 1 MiB in all) are refused before anything is printed,
// exit 2, saying why.
func TestK8sRefusesFilesAConfigMapCannotHold(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "big.json"), make([]byte, 2<<20), 0o644); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(dir, "s.yaml")
	if err := os.WriteFile(p, []byte("name: big\nworkload: {kind: closed, clients: 10, think: 100ms}\nrequests:\n  - {method: POST, path: /, body: \"@big.json\"}\nstrategies:\n  - {name: a, backoff: full, timeout: 1s}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	code, stdout, stderr := runCLI(t, "k8s", p, "--shards", "2", "--target", "http://proxy.staging:8090/")
	if code != exitUsage || stdout != "" || !strings.Contains(stderr, "a ConfigMap holds at most 1.0 MiB") {
		t.Errorf("exit %d, stdout %d bytes, stderr %q; want 2, nothing printed, and why", code, len(stdout), stderr)
	}
}
