// Package archcheck keeps docs/architecture.md true to the code. It has no
// code of its own: its tests read the page's package table and check it
// against the packages of the module and what each imports, the layers the
// page states against the import graph (TestLayers), the model's packages
// against every transport (TestModelImportsNoTransport, the simulator's
// links too), and every production function against a length a reader
// takes in at once (TestNoLongFunctions).
package archcheck
