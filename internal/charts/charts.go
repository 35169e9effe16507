package charts

import (
	"crypto/sha256"
	_ "embed"
	"encoding/base64"
	"fmt"
	"image/color"
	"strings"
)

// JS is charts.js, inlined after uPlot (internal/uplot) by a page.
//
//go:embed charts.js
var JS string

// Outcomes are the attempts' outcomes' colours, by the outcome's name as
// results.Outcome writes it (a test there checks every outcome has one).
var Outcomes = map[string]string{
	"ok": "#4daf4a", "http_5xx": "#e41a1c", "http_429": "#984ea3", "http_4xx": "#a65628",
	"timeout": "#ff7f00", "refused": "#999999", "reset": "#f781bf", "error": "#377eb8",
}

// Palette are the cohorts' colours, in order (Okabe–Ito: distinguishable
// with the common colour-vision deficiencies).
var Palette = []string{"#d55e00", "#0072b2", "#009e73", "#cc79a7", "#e69f00", "#56b4e9", "#000000", "#f0e442"}

// RGB is a colour of Outcomes or Palette as an image colour (for the
// PNGs); it panics on a malformed one, which the tests would catch.
func RGB(hex string) color.Color {
	var v uint32
	if _, err := fmt.Sscanf(strings.TrimPrefix(hex, "#"), "%06x", &v); err != nil || len(hex) != 7 {
		panic(fmt.Sprintf("charts: %q is not a #rrggbb colour", hex))
	}
	return color.RGBA{R: uint8(v >> 16), G: uint8(v >> 8), B: uint8(v), A: 255}
}

// ScriptHash is the CSP source that allows an inline script (or style)
// of exactly this text.
func ScriptHash(js string) string {
	sum := sha256.Sum256([]byte(js))
	return "'sha256-" + base64.StdEncoding.EncodeToString(sum[:]) + "'"
}

// Inlinable reports whether text can go inside a page's element of that
// tag (script or style) as it is: nothing in it closes the element.
func Inlinable(tag, text string) bool {
	return !strings.Contains(strings.ToLower(text), "</"+tag)
}
