package uplot

import _ "embed"

// Version is the npm package's version the files here are copied from.
const Version = "1.6.32"

// The SHA-256 of the vendored files, as copied from the npm tarball
// uplot-1.6.32.tgz (sha256 4b8a8191e425658e3ea8c8c1314b0fc679c861ee3a1af2b20c7b16ba50b5133d).
const (
	JSSHA256  = "19c8d4c6ad88929a79f4ae49d6f7161566dfd0ba3d15cc495e974f787eb78f1f"
	CSSSHA256 = "df630c6a8d6f8eeaff264b50f73ce5b114f646ffd9a0bb74f049b0a00135fa04"
)

// JS is uPlot's minified browser build (dist/uPlot.iife.min.js): it defines
// the global uPlot.
//
//go:embed uPlot.iife.min.js
var JS string

// CSS is uPlot's stylesheet (dist/uPlot.min.css).
//
//go:embed uPlot.min.css
var CSS string
