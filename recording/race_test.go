//go:build race

package recording

// raceEnabled is set when the tests run with -race, which slows them
// and multiplies the memory they take.
const raceEnabled = true
