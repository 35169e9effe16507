package k8sschema

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestJobPodsStartsEachIndexAsTheJobSays: the golden three-shard manifest
// gives three pods, each with its completion index in the environment and
// in --shard, the control token from its Secret, the nonroot user, a
// read-only root without capabilities, the scenario's ConfigMap mounted
// read-only and the results claim.
func TestJobPodsStartsEachIndexAsTheJobSays(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "kube", "testdata", "gameday-3.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pods, err := JobPods(b, map[string]map[string]string{"herdbench-control-token": {"token": "t0k"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods) != 3 {
		t.Fatalf("%d pods, want 3", len(pods))
	}
	for i, p := range pods {
		args := strings.Join(p.Args, " ")
		if !strings.Contains(args, "--shard "+string(rune('0'+i))+"/3") || strings.Contains(args, "$(") {
			t.Errorf("pod %d: args %q, want --shard %d/3 expanded", i, args, i)
		}
		if !slices.Contains(p.Env, EnvVar{"JOB_COMPLETION_INDEX", string(rune('0' + i))}) || !slices.Contains(p.Env, EnvVar{"HERDBENCH_CONTROL_TOKEN", "t0k"}) {
			t.Errorf("pod %d: env %v", i, p.Env)
		}
		if p.User != "65532:65532" || !p.ReadOnlyRoot || !p.DropAll || !p.NoNewPrivs {
			t.Errorf("pod %d: user %q, read-only %v, drop all %v, no new privileges %v", i, p.User, p.ReadOnlyRoot, p.DropAll, p.NoNewPrivs)
		}
		var scenario, claim bool
		for _, m := range p.Mounts {
			scenario = scenario || (m.Path == "/etc/herdbench" && m.ReadOnly && strings.Contains(m.Files["scenario.yaml"], "name: gameday"))
			claim = claim || (m.Path == "/results" && m.Claim != "")
		}
		if !scenario || !claim {
			t.Errorf("pod %d: mounts %+v", i, p.Mounts)
		}
	}
	if _, err := JobPods(b, nil); err == nil || !strings.Contains(err.Error(), "HERDBENCH_CONTROL_TOKEN") {
		t.Errorf("without the Secret's value: %v, want an error naming the variable", err)
	}
}

// TestExpandAsKubernetes: $(VAR) is replaced when defined and left as
// written when not, $$ is a literal $.
func TestExpandAsKubernetes(t *testing.T) {
	vars := map[string]string{"I": "2", "T": "x"}
	for in, want := range map[string]string{
		"$(I)/3":         "2/3",
		"$(J)/3":         "$(J)/3",
		"$$(I)":          "$(I)",
		"a$(T)b$(I)":     "axb2",
		"cost $5":        "cost $5",
		"$":              "$",
		"$(unterminated": "$(unterminated",
	} {
		if got := Expand(in, vars); got != want {
			t.Errorf("Expand(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestJobPodsMountsTheScenariosFiles: a scenario's files, text and
// binary, are projected where the manifest's items put them.
func TestJobPodsMountsTheScenariosFiles(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "kube", "testdata", "gameday-2-files.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	pods, err := JobPods(b, map[string]map[string]string{"herdbench-control-token": {"token": "t0k"}})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range pods[0].Mounts {
		if m.Path == "/etc/herdbench" && len(m.Files) < 2 {
			t.Errorf("the scenario's mount holds %d files, want the scenario and the files it names: %v", len(m.Files), m.Files)
		}
	}
}
