//go:build race

package main

// raceEnabled is set when the tests run with -race, which multiplies the
// memory a process takes.
const raceEnabled = true
