package chaos

import (
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// TestKindsAreDocumented: docs/faults.md has a row for every registered
// fault kind, naming every one of its fields, and no row for a kind that
// does not exist.
func TestKindsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/faults.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]string{}
	for _, line := range strings.Split(string(doc), "\n") {
		if m := regexp.MustCompile("^\\| `([\\w-]+)` \\|").FindStringSubmatch(line); m != nil {
			rows[m[1]] = line
		}
	}
	for _, k := range Kinds() {
		row, ok := rows[k]
		if !ok {
			t.Errorf("docs/faults.md has no row for fault kind %q", k)
			continue
		}
		spec, _ := NewSpec(k)
		st := reflect.TypeOf(spec).Elem()
		for i := range st.NumField() {
			name, _, _ := strings.Cut(st.Field(i).Tag.Get("yaml"), ",")
			if !strings.Contains(row, "`"+name+"`") {
				t.Errorf("docs/faults.md: the row of %q does not name its field %s", k, name)
			}
		}
	}
	for k := range rows {
		if !slices.Contains(Kinds(), k) {
			t.Errorf("docs/faults.md has a row for %q, which is not a registered fault kind", k)
		}
	}
}
