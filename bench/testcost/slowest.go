package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"slices"
	"strings"
)

// Timed is a package or a test and the seconds it took.
type Timed struct {
	Name    string
	Seconds float64
}

// event is one line of go test -json (test2json's TestEvent).
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// Slowest reads go test -json output and returns its n slowest packages
// and its n slowest top-level tests (a subtest's time is inside its
// parent's), slowest first. Lines that are not events are skipped.
func Slowest(out []byte, n int) (pkgs, tests []Timed) {
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || (e.Action != "pass" && e.Action != "fail") {
			continue
		}
		switch {
		case e.Test == "":
			pkgs = append(pkgs, Timed{e.Package, e.Elapsed})
		case !strings.Contains(e.Test, "/"):
			tests = append(tests, Timed{strings.TrimPrefix(e.Package, module) + "." + e.Test, e.Elapsed})
		}
	}
	for i := range pkgs {
		pkgs[i].Name = strings.TrimPrefix(pkgs[i].Name, module)
	}
	top := func(v []Timed) []Timed {
		slices.SortStableFunc(v, func(a, b Timed) int {
			switch {
			case a.Seconds > b.Seconds:
				return -1
			case a.Seconds < b.Seconds:
				return 1
			}
			return strings.Compare(a.Name, b.Name)
		})
		return v[:min(n, len(v))]
	}
	return top(pkgs), top(tests)
}

// module is the prefix of the module's packages, left out of the names.
const module = "github.com/herdbench/herdbench/"

// failures names the top-level tests that failed in go test -json
// output, or their package where it failed without a test failing (a
// build error, a crash).
func failures(out []byte) string {
	var names []string
	failed := map[string]bool{} // packages with a failed test
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var e event
		if json.Unmarshal(sc.Bytes(), &e) != nil || e.Action != "fail" || strings.Contains(e.Test, "/") {
			continue
		}
		pkg := strings.TrimPrefix(e.Package, module)
		switch {
		case e.Test != "":
			names = append(names, pkg+"."+e.Test)
			failed[pkg] = true
		case !failed[pkg]:
			names = append(names, pkg)
		}
	}
	if len(names) == 0 {
		return "see the output"
	}
	return strings.Join(names, ", ")
}
