// Package uplot holds uPlot, the chart library herdbench's pages draw their
// time series with: the npm package uplot at a pinned version, vendored
// unchanged with its MIT licence (LICENSE beside this file), and embedded so
// a page inlines it and loads nothing from the network.
//
// To upgrade: `npm pack uplot@VERSION`, copy dist/uPlot.iife.min.js,
// dist/uPlot.min.css and LICENSE here, and set Version and the checksums
// below to the new files' (the test fails until they match).
package uplot
