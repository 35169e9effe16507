// Package decode is the strict YAML reading a scenario file and a fault
// given by hand share: the problem list (every problem at once, each with
// its line and field path), the refusal of YAML tags, the check of mapping
// keys against a Go type with a close match for a typo (did you mean), and
// the one fault decoder, used for a scenario's chaos list and for a fault
// sent to a standalone target or proxy (/control/inject, ParseFault).
//
// It imports chaos (the fault kinds) and nothing of scenarios, so the
// control API reads a fault without the scenario compiler.
package decode
