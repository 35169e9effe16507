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
	dir, err := goldenDir()
	if err != nil {
		return nil, err
	}
	golden, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil || len(golden) == 0 {
		return nil, fmt.Errorf("kubetest: no golden files in %s (%v)", dir, err)
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

// goldenDir returns the kube package's testdata folder: beside this
// file's source, or, in a build with -trimpath (whose source paths are
// import paths), found from the working directory up (a checker's test
// runs in its module's folder, within the repository).
func goldenDir() (string, error) {
	if _, here, _, ok := runtime.Caller(0); ok && filepath.IsAbs(here) {
		return filepath.Join(filepath.Dir(here), "..", "testdata"), nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("kubetest: cannot find the golden files: %w", err)
	}
	for d := wd; ; d = filepath.Dir(d) {
		dir := filepath.Join(d, "kube", "testdata")
		if info, err := os.Stat(dir); err == nil && info.IsDir() {
			return dir, nil
		}
		if filepath.Dir(d) == d {
			return "", fmt.Errorf("kubetest: no kube/testdata in %s or a folder above it", wd)
		}
	}
}
