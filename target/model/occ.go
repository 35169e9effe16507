package model

import (
	"time"

	"github.com/herdbench/herdbench/internal/dist"
)

// Kind says what a target serves.
type Kind uint8

// Target kinds.
const (
	// Plain answers every request 200 "ok" once the capacity model has
	// served it.
	Plain Kind = iota
	// OCC holds one row with a version under optimistic concurrency
	// control, as in AWS's backoff experiment: a read returns the version; a
	// write carrying version v succeeds, and bumps the version, only if v is
	// current. A failed write is a conflict (HTTP 409 on the wire, recorded
	// as http_4xx).
	OCC
)

var kindNames = [...]string{Plain: "plain", OCC: "occ"}

// String returns the kind's name as written in scenarios.
func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "Kind(?)"
}

// ParseKind reads a target kind name.
func ParseKind(name string) (Kind, bool) {
	for i, n := range kindNames {
		if n == name {
			return Kind(i), true
		}
	}
	return 0, false
}

// Op is what a request asks of the target. The capacity model treats every
// op alike (it holds a slot for the service time); the op takes effect when
// the job's service completes, so the order of effects is the order in
// which the model serves jobs, in both engines.
type Op uint8

// Ops.
const (
	OpPlain Op = iota // a plain request: answered "ok"
	OpRead            // OCC: read the row's version into Job.Version
	OpWrite           // OCC: write the row if Job.Version is current, else Job.Conflict
)

// Row is the OCC target's single row. The zero value is a row at version 0.
type Row struct {
	version uint64

	Reads     int64 // reads served
	Writes    int64 // writes served (AWS's "calls"), conflicts included
	Conflicts int64 // writes that carried a stale version
}

// Version returns the row's current version.
func (r *Row) Version() uint64 { return r.version }

// Read returns the current version.
func (r *Row) Read() uint64 {
	r.Reads++
	return r.version
}

// Write applies a write that read version v: it succeeds, and bumps the
// version, only if v is still current.
func (r *Row) Write(v uint64) bool {
	r.Writes++
	if v != r.version {
		r.Conflicts++
		return false
	}
	r.version++
	return true
}

// CallRecorder takes every write an OCC target serves, at the instant it is
// served. *results.Recorder implements it.
type CallRecorder interface {
	Call(at time.Duration)
}

// apply gives j's op its effect on the row, at now.
func (m *Model) apply(now time.Duration, j *Job) {
	j.Version, j.Conflict = m.effect(now, j.Op, j.Version)
}

// effect gives a served op its effect on the row at now: a read returns
// the current version; a write carrying version is recorded, and returns
// whether it conflicted. A plain op changes nothing.
func (m *Model) effect(now time.Duration, op Op, version uint64) (uint64, bool) {
	switch op {
	case OpRead:
		return m.row.Read(), false
	case OpWrite:
		conflict := !m.row.Write(version)
		if m.calls != nil {
			m.calls.Call(now)
		}
		return version, conflict
	}
	return version, false
}

// Row returns the OCC row (the zero row for a plain target, never written).
func (m *Model) Row() *Row { return &m.row }

// RecordCalls makes the model report every write it serves to r.
func (m *Model) RecordCalls(r CallRecorder) { m.calls = r }

// Hop returns one network hop's delay (client to target, or back), drawn
// from the model's network delay distribution. Both engines draw hops here:
// the simulator schedules them as events, the real server sleeps them on
// receipt and before replying.
func (m *Model) Hop() time.Duration {
	switch {
	case m.hopNormal:
		return dist.NormalDraw(m.hopMean, m.hopSD, m.rng.NormFloat64())
	case !m.hops:
		return 0
	}
	return m.cfg.Network.Sample(m.rng)
}

// Listening reports whether the target accepts connections at now: false
// while a refuse or goaway outage is active, when connecting fails at once.
func (m *Model) Listening(now time.Duration) bool {
	return m.active(now).Outage.Listening()
}
