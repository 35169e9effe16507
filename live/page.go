package live

import (
	_ "embed"
	"html"
	"net/http"
	"strings"

	"github.com/herdbench/herdbench/internal/charts"
	"github.com/herdbench/herdbench/internal/uplot"
)

//go:embed page.js
var pageJS string

//go:embed page.css
var pageCSS string

// page is the live page's HTML, built once: uPlot and the page's own
// script and style inline, each allowed by its hash in csp and nothing
// else (no inline handler, no eval, no connection but to this address).
var page, csp = buildPage()

func buildPage() (string, string) {
	scripts, styles := []string{uplot.JS, charts.JS, pageJS}, []string{uplot.CSS, pageCSS}
	var policy strings.Builder
	policy.WriteString("default-src 'none'; script-src")
	for _, js := range scripts {
		if !charts.Inlinable("script", js) {
			panic("live: a script to inline holds </script")
		}
		policy.WriteString(" " + charts.ScriptHash(js))
	}
	policy.WriteString("; style-src")
	for _, css := range styles {
		if !charts.Inlinable("style", css) {
			panic("live: a stylesheet to inline holds </style")
		}
		policy.WriteString(" " + charts.ScriptHash(css))
	}
	policy.WriteString("; connect-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")
	var b strings.Builder
	b.WriteString(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>herdbench live</title>
<style>`)
	b.WriteString(uplot.CSS)
	b.WriteString("</style>\n<style>")
	b.WriteString(pageCSS)
	b.WriteString(`</style>
</head><body>
<header><h1 id="title">herdbench live</h1><span id="conn" class="conn">connecting…</span></header>
<section id="state" class="state"></section>
<section id="controls" class="controls" hidden>
<button id="start" type="button">Start plan</button>
<button id="stop" type="button">Stop chaos</button>
<input id="fault" type="text" size="48" spellcheck="false" aria-label="fault to inject (JSON)" value="`)
	b.WriteString(html.EscapeString(`{"kind":"outage","mode":"503","for":"5s"}`))
	b.WriteString(`">
<button id="inject" type="button">Inject</button>
<span id="answer" class="answer"></span>
</section>
<section><h2>Fault plan</h2><div id="timeline" class="timeline"></div></section>
<section><h2>Verdict so far</h2><table id="verdict" class="verdict"><thead><tr><th>cohort</th><th>attempts</th><th>success ratio</th><th title="the index of dispersion of attempts per 10 ms within each second, so far: about 1 for independent arrivals, far above 1 for synchronized waves">herd factor</th><th>in flight</th><th>recovered</th></tr></thead><tbody></tbody></table></section>
<section id="charts"></section>
<script>`)
	for i, js := range scripts {
		if i > 0 {
			b.WriteString("</script>\n<script>")
		}
		b.WriteString(js)
	}
	b.WriteString("</script>\n</body></html>\n")
	return b.String(), policy.String()
}

func (s *Server) page(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "no-referrer")
	h.Set("Cache-Control", "no-store")
	_, _ = w.Write([]byte(page))
}
