// Package archcheck keeps docs/architecture.md true to the code. It has no
// code of its own: its test reads the page's package table and checks it
// against the packages of the module and what each imports, and the
// layers the page states against the import graph (TestLayers).
package archcheck
