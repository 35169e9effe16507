package archcheck

import (
	"go/build"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
)

const module = "github.com/herdbench/herdbench/"

// root is the module's folder, from this package's.
var root = filepath.Join("..", "..")

// ignored says the go tool ignores a folder of this name in ./...: a
// hidden one, one beginning with _, testdata.
func ignored(name string) bool {
	return strings.HasPrefix(name, ".") || strings.HasPrefix(name, "_") || name == "testdata"
}

// packages returns every package of the module (by its path inside the
// module) with the module's packages its non-test files import.
func packages(t *testing.T) map[string][]string {
	t.Helper()
	out := map[string][]string{}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() {
			return nil
		}
		if path != root && ignored(d.Name()) {
			return filepath.SkipDir
		}
		p, err := build.ImportDir(path, 0)
		if err != nil {
			if _, none := err.(*build.NoGoError); none {
				return nil // a folder without Go files
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		var imports []string
		for _, imp := range p.Imports {
			if after, ok := strings.CutPrefix(imp, module); ok {
				imports = append(imports, after)
			}
		}
		sort.Strings(imports)
		out[filepath.ToSlash(rel)] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// table reads the package table of docs/architecture.md: package, and the
// packages its imports cell names ("—" for none; notes in parentheses are
// not names).
func table(t *testing.T) map[string][]string {
	t.Helper()
	doc, err := os.ReadFile(filepath.Join(root, "docs", "architecture.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, section, ok := strings.Cut(string(doc), "\n## Packages\n")
	if !ok {
		t.Fatal("docs/architecture.md has no ## Packages section")
	}
	section, _, _ = strings.Cut(section, "\n## ")
	row := regexp.MustCompile("(?m)^\\| `([^`]+)` \\|.*\\| ([^|]*) \\|$")
	notes := regexp.MustCompile(`\([^)]*\)`)
	out := map[string][]string{}
	for _, m := range row.FindAllStringSubmatch(section, -1) {
		if _, dup := out[m[1]]; dup {
			t.Errorf("docs/architecture.md lists %s twice", m[1])
		}
		var names []string
		for _, n := range strings.Split(notes.ReplaceAllString(m[2], ""), ",") {
			n = strings.Trim(strings.TrimSpace(n), "`")
			if n != "" && n != "—" {
				names = append(names, n)
			}
		}
		sort.Strings(names)
		out[m[1]] = names
	}
	if len(out) == 0 {
		t.Fatal("no rows read from docs/architecture.md's package table")
	}
	return out
}

// TestPackageTable: docs/architecture.md's package table has a row for
// every package of the module, no row for a package that is gone, and for
// each the herdbench packages it imports, exactly.
func TestPackageTable(t *testing.T) {
	real, doc := packages(t), table(t)
	for p, imports := range real {
		listed, ok := doc[p]
		if !ok {
			t.Errorf("docs/architecture.md's package table has no row for %s (imports: %s)", p, strings.Join(imports, ", "))
			continue
		}
		if !slices.Equal(listed, imports) {
			t.Errorf("docs/architecture.md says %s imports [%s]; it imports [%s]", p, strings.Join(listed, ", "), strings.Join(imports, ", "))
		}
	}
	for p := range doc {
		if _, ok := real[p]; !ok {
			t.Errorf("docs/architecture.md's package table lists %s, which is no package of the module", p)
		}
	}
}

// layers are the rules of the import graph docs/architecture.md states:
// a package (or every package under a path ending in "/") never imports,
// directly or through others, the packages listed. They keep the order of
// a run's results visible: the recording and the figures (results) below
// the folder that holds them on disk (results/folder), which is below the
// readers of folders (results/report, merge) and the CLI; the terminal
// renderer (results/terminal) draws figures in memory and reads no folder.
var layers = []struct {
	pkg    string
	never  []string
	except []string // packages under pkg the rule does not cover
}{
	// The model imports no engine, scenario or CLI.
	{"chaos", []string{"engine", "sim", "scenarios", "cmd/"}, nil},
	{"target", []string{"engine", "sim", "scenarios", "cmd/"}, nil},
	{"target/model", []string{"engine", "sim", "scenarios", "cmd/", "target", "clients/swarm"}, nil},
	{"clients", []string{"engine", "sim", "scenarios", "cmd/"}, nil},
	{"seeds", []string{"engine", "sim", "scenarios", "cmd/"}, nil},
	{"results", []string{"engine", "sim", "scenarios", "cmd/", "results/"}, nil},
	{"results/folder", []string{"engine", "sim", "scenarios", "cmd/", "results/terminal", "results/report", "merge"}, nil},
	{"results/terminal", []string{"engine", "sim", "scenarios", "cmd/", "results/folder", "results/report"}, nil},
	{"results/report", []string{"engine", "sim", "scenarios", "cmd/", "results/terminal", "merge"}, nil},
	{"merge", []string{"engine", "sim", "scenarios", "cmd/", "results/terminal", "results/report"}, nil},
	// The virtual-time engine drives the model alone: no server, swarm or wire.
	{"sim", []string{"target", "clients/swarm", "internal/httpwire", "internal/grpcraw", "internal/wire"}, nil},
	// The wires of the model's clients and target know the model; every
	// other internal package is below it.
	{"internal/", []string{"engine", "sim", "scenarios", "cmd/"}, nil},
	{"internal/", []string{"results", "clients", "target"}, []string{"internal/httpwire"}},
	// The cliff search decides; cliff/drive runs.
	{"cliff", []string{"engine", "sim", "scenarios", "cmd/", "results", "cliff/drive"}, nil},
}

// matches says whether package p is the rule's path or, for a path ending
// in "/", under it.
func matches(p, rule string) bool {
	if strings.HasSuffix(rule, "/") {
		return strings.HasPrefix(p, rule)
	}
	return p == rule
}

// TestLayers: the import graph keeps the layers (layers), each package's
// imports followed to the end.
func TestLayers(t *testing.T) {
	graph := packages(t)
	reach := func(from string) map[string]string { // package -> the import that led to it
		seen := map[string]string{}
		next := []string{from}
		for len(next) > 0 {
			p := next[0]
			next = next[1:]
			for _, q := range graph[p] {
				if _, ok := seen[q]; !ok {
					seen[q] = p
					next = append(next, q)
				}
			}
		}
		return seen
	}
	checked := 0
	for p := range graph {
		for _, l := range layers {
			if !matches(p, l.pkg) || slices.Contains(l.except, p) {
				continue
			}
			checked++
			for q, via := range reach(p) {
				for _, n := range l.never {
					if matches(q, n) {
						t.Errorf("%s imports %s (through %s); the layers forbid it", p, q, via)
					}
				}
			}
		}
	}
	if checked < len(layers) {
		t.Errorf("the rules matched %d packages, fewer than the %d rules: a rule names a package that is gone", checked, len(layers))
	}
}
