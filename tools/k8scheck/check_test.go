package main

import (
	"os"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/kube/kubetest"
)

// TestHerdbenchManifests: what herdbench k8s prints, for 1 to 8 shards,
// with and without a chaos control and a claim of its own, and the
// golden files, pass Kubernetes' own validation of a create request.
func TestHerdbenchManifests(t *testing.T) {
	manifests, err := kubetest.Manifests()
	if err != nil {
		t.Fatal(err)
	}
	for name, b := range manifests {
		res, err := Check(b)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		kinds := ""
		for _, r := range res {
			kinds += r.Kind + " "
			for _, p := range r.Problems {
				t.Errorf("%s: %s %s: %s", name, r.Kind, r.Name, p)
			}
		}
		if !strings.Contains(kinds, "Job") || !strings.Contains(kinds, "ConfigMap") {
			t.Errorf("%s: documents %s", name, kinds)
		}
	}
}

// TestRefusesBadManifests: the checker can fail: an unknown field, a
// negative backoff limit, a pod failure policy under restartPolicy
// OnFailure, and a kind it does not know are each refused.
func TestRefusesBadManifests(t *testing.T) {
	good, err := os.ReadFile("../../kube/testdata/gameday-3.yaml")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"unknown field", "  backoffLimit: 0\n", "  backoffLimit: 0\n  backofLimit: 1\n", "unknown field"},
		{"negative backoff limit", "  backoffLimit: 0\n", "  backoffLimit: -1\n", "spec.backoffLimit"},
		{"restart on failure", "restartPolicy: Never", "restartPolicy: OnFailure", "restartPolicy"},
		{"negative parallelism", "  parallelism: 3\n", "  parallelism: -1\n", "spec.parallelism"},
		{"unknown kind", "kind: ConfigMap", "kind: ConfigMapp", "not a kind this checker knows"},
	} {
		bad := strings.Replace(string(good), c.from, c.to, 1)
		if bad == string(good) {
			t.Fatalf("%s: %q not in the golden file", c.name, c.from)
		}
		res, err := Check([]byte(bad))
		if err != nil {
			t.Fatal(err)
		}
		var all []string
		for _, r := range res {
			all = append(all, r.Problems...)
		}
		if !strings.Contains(strings.Join(all, "\n"), c.want) {
			t.Errorf("%s: problems %q, want one naming %q", c.name, all, c.want)
		}
	}
}
