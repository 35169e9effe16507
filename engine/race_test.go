//go:build race

package engine

// raceEnabled is set when the tests run with -race, which slows them
// several times over.
const raceEnabled = true
