// Package doccheck holds the checks on the project's pages (README.md and
// docs/): its tests fail on a measured figure in prose that no generated
// file under docs/measured backs (TestNoUnbackedFigures; the rule is in
// docs/performance.md, "Figures in prose") and on a relative link or
// anchor that leads nowhere (TestLinksResolve). It has no code of its own.
package doccheck
