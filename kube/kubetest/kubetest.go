// Package kubetest gives the checkers of herdbench k8s's manifests
// (tools/k8scheck, tools/k8sschema: modules of their own) the manifests to
// check: what Manifest prints for 1 to 8 shards, with and without a chaos
// control, with a claim of its own and an existing one, and the kube
// package's golden files.
package kubetest

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"time"

	"github.com/herdbench/herdbench/kube"
)

// Manifests returns the manifests to check, by a name that says which.
func Manifests() (map[string][]byte, error) {
	out := map[string][]byte{}
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
				return nil, err
			}
			out[fmt.Sprintf("%d shards, control %q, existing claim %v", n, control, o.Existing)] = b
		}
	}
	_, here, _, ok := runtime.Caller(0)
	if !ok {
		return nil, fmt.Errorf("kubetest: cannot find the golden files")
	}
	golden, err := filepath.Glob(filepath.Join(filepath.Dir(here), "..", "testdata", "*.yaml"))
	if err != nil || len(golden) == 0 {
		return nil, fmt.Errorf("kubetest: no golden files beside %s (%v)", here, err)
	}
	for _, g := range golden {
		b, err := os.ReadFile(g)
		if err != nil {
			return nil, err
		}
		out[filepath.Base(g)] = b
	}
	return out, nil
}
