package main

import (
	"reflect"
	"testing"
)

// TestSlowestRanksPackagesAndTopLevelTests: packages and top-level tests
// apart, slowest first, subtests and other actions left out, at most n.
func TestSlowestRanksPackagesAndTopLevelTests(t *testing.T) {
	out := []byte(`{"Action":"start","Package":"github.com/herdbench/herdbench/sim"}
not json: a build line
{"Action":"pass","Package":"github.com/herdbench/herdbench/sim","Test":"TestA","Elapsed":2.5}
{"Action":"pass","Package":"github.com/herdbench/herdbench/sim","Test":"TestA/sub","Elapsed":2.4}
{"Action":"fail","Package":"github.com/herdbench/herdbench/engine","Test":"TestB","Elapsed":7}
{"Action":"output","Package":"github.com/herdbench/herdbench/engine","Test":"TestB","Output":"x"}
{"Action":"pass","Package":"github.com/herdbench/herdbench/sim","Test":"TestC","Elapsed":0.1}
{"Action":"pass","Package":"github.com/herdbench/herdbench/sim","Elapsed":3}
{"Action":"fail","Package":"github.com/herdbench/herdbench/engine","Elapsed":9}
{"Action":"skip","Package":"github.com/herdbench/herdbench/live","Elapsed":0}
`)
	pkgs, tests := Slowest(out, 2)
	if want := []Timed{{"engine", 9}, {"sim", 3}}; !reflect.DeepEqual(pkgs, want) {
		t.Errorf("packages %v, want %v", pkgs, want)
	}
	if want := []Timed{{"engine.TestB", 7}, {"sim.TestA", 2.5}}; !reflect.DeepEqual(tests, want) {
		t.Errorf("tests %v, want %v", tests, want)
	}
	if got := failures(out); got != "engine.TestB" {
		t.Errorf("failures %q, want engine.TestB", got)
	}
	if got := failures([]byte(`{"Action":"fail","Package":"github.com/herdbench/herdbench/sim","Elapsed":1}`)); got != "sim" {
		t.Errorf("failures of a package without a failed test %q, want sim", got)
	}
}
