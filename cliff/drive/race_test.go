//go:build race

package drive

// underRace says the tests run with the race detector, which makes each
// simulated run ten to twenty times slower: the tests that run hundreds
// of them for their figures (the model, one goroutine per run) run fewer,
// and the concurrency they share (the workers, the snapshots'
// continuations) is still raced.
const underRace = true
