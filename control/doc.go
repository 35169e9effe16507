// Package control is the HTTP control API of a standalone target or chaos
// proxy, served with its Prometheus metrics on a separate address from the
// traffic (--control-addr), so that no route can clash with the service's
// paths and a refuse or reset outage never cuts off the controls:
//
//	GET  /control/status   the plan's clock, active and coming faults, counters (JSON)
//	POST /control/start    (re)start the chaos plan now, or at {"at": "<RFC 3339 time>"};
//	                       {"duration": "12s"} names the run's length (RunFor)
//	POST /control/stop     end the chaos now: the plan stops, active faults end
//	POST /control/inject   add a fault now, e.g. {"kind":"outage","mode":"503","for":"5s"}
//	POST /control/results  write the results folder of the traffic recorded so far
//	GET  /metrics          Prometheus metrics
//
// Injected faults are read by decode.ParseFault (package scenarios/decode,
// the one fault decoder, which a scenario's chaos list goes through too,
// without the rest of scenarios): the same fault kinds, parameters and
// checks as a scenario's chaos list; their at is a delay from now. Every answer is JSON; errors are {"error": "...",
// "problems": [...]} with status 400.
//
// Before any of this, every request passes the API's guard (guard.go),
// so that no web page a game-day participant opens can drive it: its Host
// must name the control address (DNS rebinding), its Origin, if any, must
// be the control address itself, a POST must be application/json (which a
// browser never sends across sites without a preflight this API does not
// grant), and with Access.Token it must carry "Authorization: Bearer".
//
// Client is the API's client, beside it: Status, Start, Stop and Inject,
// with the token, the loopback interlock (internal/netguard) on every
// connection and no redirect followed. herdbench scenario --chaos-control
// uses it to start a proxy's plan at its run's t = 0.
package control
