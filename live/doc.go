// Package live is the live page of a run (--ui ADDR on herdbench scenario,
// target and proxy): one self-contained HTML page, with uPlot inlined from
// internal/uplot and a strict Content-Security-Policy (it loads nothing
// from the network), fed by Server-Sent Events.
//
// A Server samples its Source once per tick (every 100 ms): the running
// totals of each cohort's recorder (results.Live), the plan's faults and
// the elapsed time. It turns each sample into one frame of deltas since
// the previous one, encodes it once, keeps it in a bounded history (so a
// viewer who opens the page late sees the run from its start) and fans the
// same bytes out to every viewer through a buffered channel per viewer. A
// viewer whose buffer is full is dropped, never waited for: however many
// watch, and however slowly, the run's goroutines are not touched, and the
// sampling costs the same. Nor can viewers that stop reading lock others
// out: at MaxViewers (or an address's MaxViewersPerClient) a new viewer
// takes the place of one whose write has been blocked for StallAfter, and
// every stream begins with ReadCheck bytes on a small socket buffer, so a
// client that reads nothing blocks at once.
//
// Every request passes the control API's guard (control.Guard): the Host
// must name the page's address, an Origin must be the page itself, a POST
// must be JSON, and with a token every call but the page itself (which
// holds no data) must carry it. The page reads the token from its URL's
// fragment (#token=..., which the browser never sends to a server) and
// sends it as "Authorization: Bearer" on the event stream and on the
// control calls. On a target or proxy the page's start, stop and inject
// buttons call the control API, served on the page's own address behind
// the same guard.
//
// The sources are built by the command (cmd/herdbench/ui.go): a scenario's
// engine.Run, or a target's or proxy's server and recording.
package live
