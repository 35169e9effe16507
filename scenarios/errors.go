package scenarios

import "github.com/herdbench/herdbench/scenarios/decode"

// Problem is one thing wrong with a scenario: its line, its field path and
// what would be valid.
type Problem = decode.Problem

// ErrInvalid is matched (errors.Is) by every *Error.
var ErrInvalid = decode.ErrInvalid

// Error lists every problem found in one scenario file.
type Error = decode.Error

// closest returns the candidate nearest to s if it is a plausible typo.
func closest(s string, candidates []string) (string, bool) { return decode.Closest(s, candidates) }

// Closest returns the candidate nearest to s if it is a plausible typo: the
// did-you-mean of the scenario's messages, for the CLI's own (a command's
// name).
func Closest(s string, candidates []string) (string, bool) { return decode.Closest(s, candidates) }

func validList(names []string) string { return decode.ValidList(names) }
