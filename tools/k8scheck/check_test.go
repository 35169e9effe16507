package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/herdbench/herdbench/kube"
)

// TestHerdbenchManifests: what herdbench k8s prints, for 1 to 8 shards,
// with and without a chaos control and a claim of its own, and the
// golden files, pass Kubernetes' own validation of a create request.
func TestHerdbenchManifests(t *testing.T) {
	var manifests = map[string][]byte{}
	for n := 1; n <= 8; n++ {
		for _, control := range []string{"", "http://chaos-proxy.staging.svc:8091"} {
			o := kube.Options{
				Scenario: "outage_Game.Day", File: []byte("name: outage\n"), Shards: n,
				Target: "http://chaos-proxy.staging.svc:8090/", ChaosControl: control, TokenSecret: kube.DefaultTokenSecret,
				Image: kube.DefaultImage, StartAt: time.Date(2026, 12, 1, 10, 30, 0, 0, time.UTC), Lead: kube.DefaultLead,
				Duration: 15 * time.Second, CPU: "1500m", Memory: "512Mi", Claim: kube.DefaultClaim, ClaimSize: kube.DefaultClaimSize,
				Existing: n%2 == 0,
			}
			b, err := kube.Manifest(o)
			if err != nil {
				t.Fatal(err)
			}
			manifests[kube.Name(o)+control] = b
		}
	}
	golden, _ := filepath.Glob("../../kube/testdata/*.yaml")
	if len(golden) == 0 {
		t.Fatal("no golden files")
	}
	for _, g := range golden {
		b, err := os.ReadFile(g)
		if err != nil {
			t.Fatal(err)
		}
		manifests[g] = b
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
