// Package scenarios reads, validates and compiles scenario files.
//
// A scenario is one YAML file: the target's capacity model, the chaos plan,
// the workload, the strategies to compare, the duration and the seed. Loading
// is strict and reports every problem at once: YAML syntax, unknown fields
// (with the valid ones and a close match), wrong types, and then semantic
// checks (negative durations, cap below base, faults outside the run,
// duplicate cohort names, ...). Each problem carries its line and field path
// and says what would be valid. No run starts on a bad file.
//
// Open is the front door: it finds a scenario (a file on disk wins over a
// built-in of the same name), reads it, resolves the run's root seed and
// compiles it, every point of its sweep, or, with Overrides.Server, what a
// standalone target or proxy serves, and reports the problems of every step
// at once. The command and herdtest call nothing else.
//
// Compile turns a valid file, with command-line overrides applied, into a
// Plan: the typed configuration of the target, the compiled chaos plan, the
// workload and the strategies, ready for either engine. Built-in scenarios
// are embedded in the binary. The problem list, the key checks and the one
// fault decoder, shared with the control API, are package scenarios/decode.
package scenarios
