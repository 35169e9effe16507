package doccheck

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// A row of a recipe's table in docs/extending.md: its first cell names a
// place, a path from the repository's root in a code span, then the
// functions, types, fields or methods of it the recipe names, each in a
// code span (`Name`, or `Type.Name` for a method or a field).
var (
	placeRow = regexp.MustCompile("^\\| *(`[^|]*`) *\\|")
	span     = regexp.MustCompile("`([^`]+)`")
	ident    = regexp.MustCompile(`^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)?$`)
)

// missingPlaces returns what a recipe page names that the repository at
// root does not have: a path no file or folder has (a path with <name>
// in it matches any name there: `chaos/<kind>.go`, at least one file),
// and a name no Go file of the place declares. It returns, too, the
// places it read, for a test to count.
func missingPlaces(root string, lines []string) (missing []string, read int) {
	inCode := false
	for i, l := range lines {
		if fence.MatchString(l) {
			inCode = !inCode
		}
		m := placeRow.FindStringSubmatch(l)
		if inCode || m == nil {
			continue
		}
		spans := span.FindAllStringSubmatch(m[1], -1)
		at := fmt.Sprintf("line %d", i+1)
		files, err := place(root, spans[0][1])
		if err != nil {
			missing = append(missing, at+": "+err.Error())
			continue
		}
		read++
		for _, s := range spans[1:] {
			if !ident.MatchString(s[1]) {
				missing = append(missing, fmt.Sprintf("%s: %q is no name of Go code (write Name or Type.Name)", at, s[1]))
				continue
			}
			if !declared(files, s[1]) {
				missing = append(missing, fmt.Sprintf("%s: %s declares no %s", at, spans[0][1], s[1]))
			}
		}
	}
	return missing, read
}

// place returns the Go files a place's path names: the file, the folder's
// files, or the files a <name> pattern matches; an error if none exists.
func place(root, p string) ([]string, error) {
	pattern := regexp.MustCompile(`<[^>]+>`).ReplaceAllString(p, "*")
	matches, _ := filepath.Glob(filepath.Join(root, filepath.FromSlash(strings.TrimSuffix(pattern, "/"))))
	if len(matches) == 0 {
		return nil, fmt.Errorf("%s: no such file or folder", p)
	}
	var files []string
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && fi.IsDir() {
			gos, _ := filepath.Glob(filepath.Join(m, "*.go"))
			files = append(files, gos...)
		} else if strings.HasSuffix(m, ".go") {
			files = append(files, m)
		}
	}
	return files, nil
}

// declared says whether one of files declares name: a function, type,
// variable or constant at the top level, a method (Type.Name or Name), a
// field of a struct type or a method of an interface type (Type.Name).
func declared(files []string, name string) bool {
	typ, member, qualified := strings.Cut(name, ".")
	if !qualified {
		member = typ
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, parser.SkipObjectResolution)
		if err != nil {
			continue
		}
		for _, d := range file.Decls {
			if declares(d, typ, member, qualified) {
				return true
			}
		}
	}
	return false
}

func declares(d ast.Decl, typ, member string, qualified bool) bool {
	switch d := d.(type) {
	case *ast.FuncDecl:
		if d.Name.Name != member {
			return false
		}
		if d.Recv == nil {
			return !qualified
		}
		return !qualified || receiver(d.Recv.List[0].Type) == typ
	case *ast.GenDecl:
		for _, s := range d.Specs {
			switch s := s.(type) {
			case *ast.TypeSpec:
				if !qualified && s.Name.Name == member {
					return true
				}
				if qualified && s.Name.Name == typ && hasMember(s.Type, member) {
					return true
				}
			case *ast.ValueSpec:
				for _, n := range s.Names {
					if !qualified && n.Name == member {
						return true
					}
				}
			}
		}
	}
	return false
}

// receiver is a method's receiver type's name: T of T, *T, T[X] or *T[X].
func receiver(e ast.Expr) string {
	for {
		switch x := e.(type) {
		case *ast.StarExpr:
			e = x.X
		case *ast.IndexExpr:
			e = x.X
		case *ast.IndexListExpr:
			e = x.X
		case *ast.Ident:
			return x.Name
		default:
			return ""
		}
	}
}

// hasMember says whether a struct type has the field, or an interface
// type the method.
func hasMember(e ast.Expr, name string) bool {
	var fields *ast.FieldList
	switch t := e.(type) {
	case *ast.StructType:
		fields = t.Fields
	case *ast.InterfaceType:
		fields = t.Methods
	default:
		return false
	}
	for _, f := range fields.List {
		for _, n := range f.Names {
			if n.Name == name {
				return true
			}
		}
	}
	return false
}

// TestRecipesNamePlacesThatExist: every place docs/extending.md's recipes
// list is in the code: each file or folder, and each function, type,
// method or field named beside it. A recipe that names a place the code
// no longer has fails here.
func TestRecipesNamePlacesThatExist(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(root, "docs", "extending.md"))
	if err != nil {
		t.Fatal(err)
	}
	missing, read := missingPlaces(root, strings.Split(string(b), "\n"))
	for _, m := range missing {
		t.Errorf("docs/extending.md: %s", m)
	}
	if read < 40 {
		t.Errorf("docs/extending.md: %d places read; its recipes list more (is the table's first column still a path in a code span?)", read)
	}
}

// TestMissingPlacesFails: a place or a name that is not there is caught;
// a pattern, a folder, a method, a field and an interface's method pass.
func TestMissingPlacesFails(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "chaos"), 0o755); err != nil {
		t.Fatal(err)
	}
	src := "package chaos\n\ntype Effect struct{ Delay int }\n\ntype Fault interface{ Apply(e *Effect) }\n\ntype blip struct{}\n\nfunc (b *blip) Apply(e *Effect) {}\n\nfunc Register() {}\n\nvar registry = 1\n"
	if err := os.WriteFile(filepath.Join(dir, "chaos", "blip.go"), []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	for row, want := range map[string]int{
		"| `chaos/blip.go`: `Register`, `registry`, `blip.Apply`, `Effect.Delay`, `Fault.Apply` | x |": 0,
		"| `chaos/<kind>.go`: `Effect` | a kind |":                                                     0,
		"| `chaos/`: `Register` | the package |":                                                       0,
		"| `chaos/gone.go` | a file that is not there |":                                               1,
		"| `chaos/<kind>_test.go` | no test file |":                                                    1,
		"| `chaos/blip.go`: `Unregister` | no such function |":                                         1,
		"| `chaos/blip.go`: `Effect.Rate`, `blip.Compile` | no member |":                               2,
		"| `chaos/blip.go`: `backoff: fibonacci` | not a name |":                                       1,
		"| place | what |": 0,
	} {
		if got, _ := missingPlaces(dir, []string{row}); len(got) != want {
			t.Errorf("%s: %d missing, want %d: %q", row, len(got), want, got)
		}
	}
}
