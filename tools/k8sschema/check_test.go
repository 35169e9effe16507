package k8sschema

import (
	"os"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/kube/kubetest"
)

// TestHerdbenchManifests: what herdbench k8s prints, for 1 to 8 shards,
// with and without a chaos control and a claim of its own, and the golden
// files, decode strictly into Kubernetes' types: a ConfigMap, a Job and,
// when the manifest makes its claim, a PersistentVolumeClaim.
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
			if r.Problem != nil {
				t.Errorf("%s: document %d, %s %s: %v", name, r.Doc, r.Kind, r.Name, r.Problem)
			}
		}
		if !strings.Contains(kinds, "Job") || !strings.Contains(kinds, "ConfigMap") {
			t.Errorf("%s: documents %s", name, kinds)
		}
	}
}

// TestRefusesBadManifests: the check can fail: a misspelt field, a value
// of the wrong type, a quantity that does not parse and an unknown kind
// are each refused, naming what is wrong.
func TestRefusesBadManifests(t *testing.T) {
	good, err := os.ReadFile("../../kube/testdata/gameday-3.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if res, err := Check(good); err != nil || len(res) != 3 {
		t.Fatalf("the golden file: %v, %+v", err, res)
	}
	for _, c := range []struct{ name, from, to, want string }{
		{"misspelt field", "  backoffLimit: 0\n", "  backofLimit: 0\n", `unknown field "backofLimit"`},
		{"wrong type", "  parallelism: 3\n", "  parallelism: three\n", "parallelism"},
		{"bad quantity", "cpu: \"2\"", "cpu: two", "quantities must match"},
		{"unknown kind", "kind: ConfigMap", "kind: ConfigMapp", "not a kind this check knows"},
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
			if r.Problem != nil {
				all = append(all, r.Problem.Error())
			}
		}
		if len(all) != 1 || !strings.Contains(all[0], c.want) {
			t.Errorf("%s: problems %q, want one naming %q", c.name, all, c.want)
		}
	}
	if _, err := Check([]byte("# only a comment\n")); err == nil {
		t.Error("a stream without documents passed")
	}
}
