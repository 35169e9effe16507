package clients

import (
	"fmt"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// defaultSpec returns a fresh Spec of kind, with its published constants.
func defaultSpec[P any](t *testing.T, f *Family[P], kind string) Spec[P] {
	t.Helper()
	s, ok := f.Spec(kind)
	if !ok {
		t.Fatalf("%s kind %q is not registered", f.Name(), kind)
	}
	return s
}

// family is what the tests need of a Family, whatever its state type.
type family interface {
	Name() string
	Default() string
	Kinds() []string
	Summary(kind string) string
	spec(kind string) any
}

func (f *Family[P]) spec(kind string) any { s, _ := f.Spec(kind); return s }

var families = []family{Budgets, Breakers, Throttles}

// TestRegisteredKinds: every registered kind has a summary for messages,
// defaults that are valid as they are (a scenario that sets nothing gets a
// working policy) and a Spec that is a pointer to a struct of YAML fields;
// a family's default kind exists. (Which kinds ship is checked against
// docs/policies.md by TestKindsAreDocumented, so a kind that goes missing
// fails there.)
func TestRegisteredKinds(t *testing.T) {
	for _, f := range families {
		if len(f.Kinds()) == 0 {
			t.Errorf("no %s kind is registered", f.Name())
		}
		if d := f.Default(); d != "" && !slices.Contains(f.Kinds(), d) {
			t.Errorf("the default %s kind %q is not registered", f.Name(), d)
		}
		for _, k := range f.Kinds() {
			if f.Summary(k) == "" {
				t.Errorf("%s kind %q has no summary", f.Name(), k)
			}
			s := f.spec(k)
			if v := reflect.ValueOf(s); v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct || len(yamlKeys(s)) == 0 {
				t.Errorf("%s kind %q: Spec %T is not a pointer to a struct with YAML fields", f.Name(), k, s)
			}
			if errs := s.(interface {
				Resolve(func(string) bool) []*ParamError
			}).Resolve(func(string) bool { return false }); errs != nil {
				t.Errorf("%s kind %q: its defaults do not resolve: %v", f.Name(), k, errs)
			}
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("registering a budget kind twice did not panic")
		}
	}()
	Budgets.Register("grpc", "again", func() BudgetSpec { return &GRPCBudgetConfig{} })
}

// TestKindsAreDocumented: docs/policies.md has a table row for every
// registered kind of every family, listing each of its fields with its
// default (durations as 10s, 2m), and no row for a kind that does not
// exist. The table is the reference users read; this keeps it true.
func TestKindsAreDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/policies.md")
	if err != nil {
		t.Fatal(err)
	}
	rows := map[string]map[string]string{} // family -> kind -> row
	section := ""
	for _, line := range strings.Split(string(doc), "\n") {
		if strings.HasPrefix(line, "#") { // a family's section is headed "### ... (`budget`)"
			section = ""
			if m := regexp.MustCompile("^### .*\\(`(\\w+)`\\)").FindStringSubmatch(line); m != nil {
				section = m[1]
			}
		}
		if m := regexp.MustCompile("^\\| `([\\w-]+)` \\|").FindStringSubmatch(line); m != nil && section != "" {
			if rows[section] == nil {
				rows[section] = map[string]string{}
			}
			rows[section][m[1]] = line
		}
	}
	for _, f := range families {
		documented := rows[f.Name()]
		for _, k := range f.Kinds() {
			row, ok := documented[k]
			if !ok {
				t.Errorf("docs/policies.md: the %s table has no row for kind %q", f.Name(), k)
				continue
			}
			v := reflect.ValueOf(f.spec(k)).Elem()
			for i, key := range yamlKeys(f.spec(k)) {
				want := "`" + key + "`"
				if d := v.Field(i); !d.IsZero() {
					want += " (" + docValue(d.Interface())
				}
				if !strings.Contains(row, want) {
					t.Errorf("docs/policies.md: the row of %s kind %q lacks %s", f.Name(), k, want)
				}
			}
		}
		for k := range documented {
			if !slices.Contains(f.Kinds(), k) {
				t.Errorf("docs/policies.md: the %s table has a row for %q, which is not a registered kind", f.Name(), k)
			}
		}
	}
}

// yamlKeys returns the YAML keys of a Spec's fields, in order.
func yamlKeys(spec any) []string {
	t := reflect.TypeOf(spec).Elem()
	var out []string
	for i := range t.NumField() {
		name, _, _ := strings.Cut(t.Field(i).Tag.Get("yaml"), ",")
		out = append(out, name)
	}
	return out
}

// docValue writes a default as the docs do: 10s, 2m, 100s, 0.5.
func docValue(v any) string {
	if d, ok := v.(time.Duration); ok {
		if d%time.Minute == 0 {
			return fmt.Sprintf("%dm", d/time.Minute)
		}
		return fmt.Sprintf("%ds", d/time.Second)
	}
	return fmt.Sprint(v)
}
