package scenarios

import (
	"errors"

	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/herdbench/herdbench/scenarios/decode"
	"github.com/herdbench/herdbench/target/model"
)

// Open resolves the root seed once: every point of a sweep has it, the
// override wins over the file's, and without either one is drawn.
func TestOpenResolvesTheSeedOnce(t *testing.T) {
	src := "name: s\nduration: 5s\nworkload: {clients: 3}\nstrategies: [{name: a, backoff: full}]\nsweep: {workload.clients: [1, 2, 3]}\n"
	op, err := OpenData("s.yaml", []byte(src), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if len(op.Plans) != 3 {
		t.Fatalf("%d plans, want one per point (3)", len(op.Plans))
	}
	for i, p := range op.Plans {
		if p.Seed != op.Seed {
			t.Errorf("point %d has seed %d; Open resolved %d", i, p.Seed, op.Seed)
		}
	}
	again, err := OpenData("s.yaml", []byte(src), Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if again.Seed == op.Seed {
		t.Errorf("two opens of a file without a seed drew the same seed %d", op.Seed)
	}
	seed := uint64(42)
	op, err = OpenData("s.yaml", []byte("seed: 7\n"+src), Overrides{Seed: &seed})
	if err != nil || op.Seed != 42 || op.Plans[0].Seed != 42 {
		t.Errorf("--seed 42 over the file's 7: %v, %+v", err, op)
	}
	op, err = OpenData("s.yaml", []byte("seed: 7\n"+src), Overrides{})
	if err != nil || op.Seed != 7 {
		t.Errorf("the file's seed 7: %v, %+v", err, op)
	}
}

// A problem of reading and one of compiling come in one error, with the
// file as read.
func TestOpenReportsEveryProblemAtOnce(t *testing.T) {
	src := "name: s\nduration: 5s\nworkload: {clients: lots}\nstrategies: [{name: a, backoff: full, cap: -1s}]\n"
	op, err := OpenData("s.yaml", []byte(src), Overrides{})
	var e *Error
	if !errors.As(err, &e) || len(e.Problems) != 2 {
		t.Fatalf("got %v; want 2 problems, the type of clients and the negative cap", err)
	}
	if !strings.Contains(e.Problems[0].Path, "workload.clients") || !strings.Contains(e.Problems[1].Path, "strategies[0].cap") {
		t.Errorf("problems %v", e.Problems)
	}
	if op == nil || string(op.Source) != src || op.Plans != nil {
		t.Errorf("a file with problems: Opened %+v; want its source and no plans", op)
	}
	if op, err := Open(filepath.Join(t.TempDir(), "none.yaml"), Overrides{}); op != nil || !errors.Is(err, ErrNotFound) {
		t.Errorf("a missing file: %+v, %v; want no Opened and ErrNotFound", op, err)
	}
}

// For a target or proxy, a gRPC scenario's target is gRPC (herdbench
// target serves it over gRPC, herdbench proxy proxies gRPC), with its
// method; a bad protocol or method is refused there too.
func TestOpenForAServerKeepsGRPC(t *testing.T) {
	for _, name := range []string{"grpc-outage"} {
		op, err := Open(name, Overrides{Server: true})
		if err != nil {
			t.Fatal(err)
		}
		if p := op.Plans[0]; p.Target.Protocol != model.GRPC || !p.GRPC || p.Method != "/grpc.examples.echo.Echo/UnaryEcho" {
			t.Errorf("%s for a server: protocol %v, GRPC %v, method %q; want gRPC and its method", name, p.Target.Protocol, p.GRPC, p.Method)
		}
	}
	op, err := OpenData("t.yaml", []byte("name: t\n"), Overrides{Server: true})
	if err != nil || op.Plans[0].Target.Protocol == model.GRPC || op.Plans[0].GRPC {
		t.Errorf("an HTTP scenario for a server: %v, %+v", err, op.Plans[0].Target)
	}
	for _, bad := range []string{"name: t\ntarget: {protocol: grcp}\n", "name: t\ntarget: {protocol: grpc, method: Call}\n"} {
		if _, err := OpenData("t.yaml", []byte(bad), Overrides{Server: true}); err == nil {
			t.Errorf("%q accepted for a server", bad)
		}
	}
}

// For a target or proxy, a scenario needs no strategies, and no scenario
// at all is the empty one.
func TestOpenForAServer(t *testing.T) {
	op, err := OpenData("t.yaml", []byte("name: t\nchaos: [{kind: outage, at: 1s, for: 2s}]\n"), Overrides{Server: true})
	if err != nil || len(op.Plans) != 1 || len(op.Plans[0].Chaos.Faults()) != 1 {
		t.Fatalf("%v, %+v", err, op)
	}
	if _, err := OpenData("t.yaml", []byte("name: t\nchaos: [{kind: outage, at: 1s, for: 2s}]\n"), Overrides{}); err == nil {
		t.Error("a swarm's open accepted a scenario without strategies")
	}
	op, err = Open("", Overrides{Server: true})
	if err != nil || op.Plans[0].Name != "none" || len(op.Plans[0].Chaos.Faults()) != 0 {
		t.Errorf("no scenario: %v, %+v", err, op)
	}
}

// Builtin tells a built-in found by name from a file of that name.
func TestOpenBuiltin(t *testing.T) {
	t.Chdir(t.TempDir())
	op, err := Open("outage.yaml", Overrides{})
	if err != nil || !op.Builtin {
		t.Fatalf("outage.yaml with no such file: %v, builtin %v", err, op != nil && op.Builtin)
	}
	if err := os.WriteFile("outage.yaml", op.Source, 0o644); err != nil {
		t.Fatal(err)
	}
	if op, err := Open("outage.yaml", Overrides{}); err != nil || op.Builtin {
		t.Errorf("a file on disk: %v, builtin %v", err, op != nil && op.Builtin)
	}
}

// A fault in a scenario's chaos list and the same fault sent by hand go
// through one decoder: the same compiled fault, and the same message for
// the same mistake.
func TestOneFaultDecoder(t *testing.T) {
	const fault = `{kind: outage, mode: "503", retry_after: 2s, at: 1s, for: 2s}`
	op, err := OpenData("t.yaml", []byte("name: t\nchaos: ["+fault+"]\n"), Overrides{Server: true})
	if err != nil {
		t.Fatal(err)
	}
	hand, err := decode.ParseFault("inject", []byte(fault))
	if err != nil {
		t.Fatal(err)
	}
	if got := op.Plans[0].Chaos.Faults()[0]; got != hand {
		t.Errorf("the scenario's fault %+v, the hand's %+v", got, hand)
	}
	const bad = `{kind: outage, mode: down, at: 1s, for: 2s}`
	_, err = OpenData("t.yaml", []byte("name: t\nchaos: ["+bad+"]\n"), Overrides{Server: true})
	_, herr := decode.ParseFault("inject", []byte(bad))
	var se, he *Error
	if !errors.As(err, &se) || !errors.As(herr, &he) || len(se.Problems) != 1 || len(he.Problems) != 1 || se.Problems[0].Msg != he.Problems[0].Msg {
		t.Errorf("a bad mode: scenario %v; by hand %v; want the same one message", err, herr)
	}
}
