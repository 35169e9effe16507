// Package spoken writes counts as they are spoken, for the messages every
// package shows a user: "1 problem", "3 problems", never "1 problem(s)".
// It imports nothing of herdbench, so any package may use it.
package spoken
