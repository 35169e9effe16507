package scenarios

import (
	"errors"
	"slices"
	"testing"

	"github.com/herdbench/herdbench/internal/safefile"
)

// TestPlanFilesAreWhatTheScenarioRead: a plan lists the files its
// scenario named, once each, relative to its folder, in the order read,
// and ReadFile reads them again under the same rule.
func TestPlanFilesAreWhatTheScenarioRead(t *testing.T) {
	scn, _ := filesTree(t)
	src := filesHead + "targets: targets.txt\n"
	op, err := openIn(t, scn, src)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"targets.txt", "bodies/a.json"} // the targets file's body
	if got := op.Plans[0].Files; !slices.Equal(got, want) {
		t.Errorf("Files %q, want %q", got, want)
	}
	if b, err := op.ReadFile("bodies/a.json", 1<<10); err != nil || string(b) != `{"a":1}` {
		t.Errorf("ReadFile: %q, %v", b, err)
	}
	if _, err := op.ReadFile("../out/shadow", 1<<10); !errors.Is(err, safefile.ErrOutside) {
		t.Errorf("ReadFile outside: %v", err)
	}
	op, err = openIn(t, scn, filesHead+"requests:\n  - {method: POST, path: /a, body: \"@link-in\"}\n  - {method: POST, path: /b, body: \"@bodies/../bodies/a.json\"}\n")
	if err != nil {
		t.Fatal(err)
	}
	if got, want := op.Plans[0].Files, []string{"link-in", "bodies/a.json"}; !slices.Equal(got, want) {
		t.Errorf("Files %q, want %q (cleaned)", got, want)
	}
}
