package archcheck

import (
	"go/build"
	"io/fs"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// The model and the wire in different rooms. The model's packages (the
// step function and its policies, the capacity model, the fault plan, the
// figures, the random streams) import no transport, so both engines drive
// the same pure code and the simulator links no socket code at all. What a
// model package may read of the outside world is the standard library but
// its transports, and a short, named list of other modules' packages.

// modelPackages are the model's packages, by their path in the module.
var modelPackages = []string{
	"chaos",          // the faults and the compiled plan
	"clients",        // the step function, strategies and policies
	"target/model",   // the capacity model
	"grpcwire",       // gRPC's codes and pushback as the model reads them
	"results",        // the recorder and the figures
	"seeds",          // the random streams
	"internal/dist",  // duration distributions
	"internal/kinds", // the registries of kinds
}

// modelAllowed are the packages of other modules a model package may
// import, each with why.
var modelAllowed = map[string]string{
	"google.golang.org/grpc/codes":            "gRPC's status codes, as grpc-go names and parses them (a grpc-go cohort's retryable codes)",
	"github.com/HdrHistogram/hdrhistogram-go": "the recorder's latency histograms",
}

// transports are the standard library's packages that speak to the
// network, or under which every package does (a path ending in "/").
var transports = []string{"net", "net/http", "net/http/", "net/rpc", "net/rpc/", "net/smtp", "crypto/tls", "crypto/x509"}

// engineTransports are what the simulator must not link, even through the
// model's allowed imports: the transports' code proper (grpc-go's codes
// reach the standard library's net for its types only).
var engineTransports = []string{"net/http", "net/http/", "crypto/tls", "golang.org/x/net/http2", "golang.org/x/net/http2/",
	"google.golang.org/grpc", "google.golang.org/grpc/internal/transport", "google.golang.org/grpc/credentials"}

// importsOf returns every package of the module with all it imports
// (its non-test files): the module's own by their path in the module, the
// others by their import path.
func importsOf(t *testing.T) map[string][]string {
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
				return nil
			}
			return err
		}
		rel, _ := filepath.Rel(root, path)
		var imports []string
		for _, imp := range p.Imports {
			imports = append(imports, strings.TrimPrefix(imp, module))
		}
		out[filepath.ToSlash(rel)] = imports
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// standard reports whether an import path is the standard library's: no
// dot in its first element.
func standard(p string) bool {
	first, _, _ := strings.Cut(p, "/")
	return !strings.Contains(first, ".")
}

// modelViolations returns, for the import graph given (package -> what it
// imports: the module's packages by their path in the module), each import
// of a model package that is not the model's: a transport of the standard
// library, another module's package not in allowed, or a package of this
// module outside model.
func modelViolations(graph map[string][]string, model []string, allowed map[string]string) []string {
	isModel := map[string]bool{}
	for _, p := range model {
		isModel[p] = true
	}
	var out []string
	for _, p := range model {
		for _, imp := range graph[p] {
			_, inModule := graph[imp]
			switch {
			case inModule && !isModel[imp]:
				out = append(out, p+" imports "+imp+", a package of the engines or wires, not of the model")
			case inModule:
			case standard(imp):
				for _, tr := range transports {
					if matches(imp, tr) {
						out = append(out, p+" imports "+imp+", a transport")
					}
				}
			case allowed[imp] == "":
				out = append(out, p+" imports "+imp+", which is not on the model's list of other modules' packages (modelAllowed)")
			}
		}
	}
	sort.Strings(out)
	return out
}

// TestModelImportsNoTransport: no model package imports a transport, a
// package of another module off the list, or a package of the engines and
// wires; and every package of the list is one.
func TestModelImportsNoTransport(t *testing.T) {
	graph := importsOf(t)
	for _, p := range modelPackages {
		if _, ok := graph[p]; !ok {
			t.Errorf("modelPackages names %s, which is no package of the module", p)
		}
	}
	for _, v := range modelViolations(graph, modelPackages, modelAllowed) {
		t.Error(v)
	}
}

// TestModelCheckFails is the test of the test: a model package that imports
// a transport, a package of the wires, or another module's package off the
// list is reported, each once; one that keeps to the model is not.
func TestModelCheckFails(t *testing.T) {
	graph := map[string][]string{
		"clients":         {"fmt", "results", "google.golang.org/grpc/codes"},
		"results":         {"sort", "github.com/HdrHistogram/hdrhistogram-go"},
		"target/model":    {"net/http", "time"},
		"chaos":           {"clients/swarm", "google.golang.org/grpc"},
		"clients/swarm":   {"net", "clients"},
		"seeds":           {"net/http/httptrace"},
		"internal/kinds":  {"net/url", "crypto/sha256"},
		"internal/dist":   {"crypto/tls"},
		"grpcwire":        {"google.golang.org/grpc/codes"},
		"internal/netfoo": {"net"},
	}
	got := modelViolations(graph, modelPackages, modelAllowed)
	want := []string{
		"chaos imports clients/swarm, a package of the engines or wires, not of the model",
		"chaos imports google.golang.org/grpc, which is not on the model's list of other modules' packages (modelAllowed)",
		"internal/dist imports crypto/tls, a transport",
		"seeds imports net/http/httptrace, a transport",
		"target/model imports net/http, a transport",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("the check reported:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestSimLinksNoTransport: the simulator (the virtual-time engine) links no
// transport's code, through any of its imports, as `go list -deps ./sim`
// lists them: it drives the model alone.
func TestSimLinksNoTransport(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", module+"sim").Output()
	if err != nil {
		t.Skipf("go list: %v", err) // no go command here: the direct check above still holds
	}
	for _, dep := range strings.Fields(string(out)) {
		for _, tr := range engineTransports {
			if matches(dep, tr) {
				t.Errorf("the simulator links %s, a transport", dep)
			}
		}
	}
}
