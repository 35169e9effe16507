package archcheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// maxFuncLines is the most lines a production function of the module may
// span, from its func keyword to its closing brace.
const maxFuncLines = 100

// longFuncs returns, for the Go source of one file, each function longer
// than max lines: "name (n lines)".
func longFuncs(fset *token.FileSet, name string, src any, max int) ([]string, error) {
	f, err := parser.ParseFile(fset, name, src, parser.SkipObjectResolution)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, d := range f.Decls {
		fd, ok := d.(*ast.FuncDecl)
		if !ok || fd.Body == nil {
			continue
		}
		if n := fset.Position(fd.End()).Line - fset.Position(fd.Pos()).Line + 1; n > max {
			out = append(out, fmt.Sprintf("%s (%d lines)", fd.Name.Name, n))
		}
	}
	return out, nil
}

// TestNoLongFunctions: no production function of the module (tests aside;
// the modules of their own under tools/, examples/ and libraries/ too)
// spans more than maxFuncLines lines: one a reader takes in at once.
func TestNoLongFunctions(t *testing.T) {
	fset := token.NewFileSet()
	files := 0
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			name := d.Name()
			if path != root && ignored(name) {
				return filepath.SkipDir
			}
			if _, err := os.Stat(filepath.Join(path, "go.mod")); err == nil && path != root {
				return filepath.SkipDir // a module of its own
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		files++
		long, err := longFuncs(fset, path, nil, maxFuncLines)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, path)
		for _, l := range long {
			t.Errorf("%s: %s; split it to at most %d", filepath.ToSlash(rel), l, maxFuncLines)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if files < 100 {
		t.Errorf("read %d files of the module: the walk missed it", files)
	}
}

// TestLongFuncsCounts is the test of the test: a function one line over
// the limit is found, with its length, and one at it is not.
func TestLongFuncsCounts(t *testing.T) {
	body := func(name string, lines int) string {
		return "func " + name + "() {\n" + strings.Repeat("\t_ = 0\n", lines-2) + "}\n"
	}
	src := "package p\n\n" + body("atTheLimit", 5) + "\n" + body("over", 6) + "\nfunc (T) method() {}\n\ntype T struct{}\n"
	got, err := longFuncs(token.NewFileSet(), "p.go", src, 5)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || got[0] != "over (6 lines)" {
		t.Errorf("longFuncs = %q, want [over (6 lines)]", got)
	}
}
