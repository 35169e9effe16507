package clients

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// MaxShards is the most shards a run may be split into.
const MaxShards = 10000

// Part is one shard of a run split over several processes (or machines):
// shard Index of Of. Client i of every cohort belongs to shard i mod Of and
// keeps its own random stream (seeds.Stream(seed, seeds.Client(i))), as in
// the whole run; an open workload's shards each draw the whole arrival
// stream and keep arrival j when j mod Of is Index. So the shards' clients
// and draws, taken together, are exactly the whole run's, each once.
//
// The zero Part is the whole run.
type Part struct {
	Index, Of int
}

// Whole reports whether p is the whole run (not split).
func (p Part) Whole() bool { return p.Of <= 1 }

// Owns reports whether client (or arrival) id belongs to p.
func (p Part) Owns(id int) bool { return p.Whole() || id%p.Of == p.Index }

// First returns the first id p owns; the next are First()+Step(), ...
func (p Part) First() int {
	if p.Whole() {
		return 0
	}
	return p.Index
}

// Step returns the distance between two ids p owns.
func (p Part) Step() int { return max(1, p.Of) }

// Count returns how many of the ids 0 .. n-1 p owns.
func (p Part) Count(n int) int {
	if first := p.First(); n > first {
		return (n - first + p.Step() - 1) / p.Step()
	}
	return 0
}

// Local returns the place of id among the ids p owns (id's index in the
// shard): recorders spread their shards' clients by it, so that a split
// does not leave some of a recorder's groups empty.
func (p Part) Local(id int) int { return id / p.Step() }

// String writes p as K/N ("0/1" for the whole run).
func (p Part) String() string {
	if p.Whole() {
		return "0/1"
	}
	return fmt.Sprintf("%d/%d", p.Index, p.Of)
}

// ErrPart is matched (errors.Is) by ParsePart's errors.
var ErrPart = errors.New("invalid shard")

// ParsePart reads "K/N": shard K (from 0) of N, 1 <= N <= MaxShards.
func ParsePart(s string) (Part, error) {
	k, n, ok := strings.Cut(strings.TrimSpace(s), "/")
	if !ok {
		return Part{}, fmt.Errorf("%w: %q is not K/N; write the shard's index from 0 and the number of shards, e.g. 0/3 (the first of three)", ErrPart, s)
	}
	ki, kerr := strconv.Atoi(strings.TrimSpace(k))
	ni, nerr := strconv.Atoi(strings.TrimSpace(n))
	switch {
	case kerr != nil || nerr != nil:
		return Part{}, fmt.Errorf("%w: %q is not K/N with two whole numbers, e.g. 0/3", ErrPart, s)
	case ni < 1 || ni > MaxShards:
		return Part{}, fmt.Errorf("%w: %q: the number of shards is from 1 to %d", ErrPart, s, MaxShards)
	case ki < 0 || ki >= ni:
		return Part{}, fmt.Errorf("%w: %q: the index counts from 0, so shard K of %d is 0 to %d", ErrPart, s, ni, ni-1)
	}
	return Part{Index: ki, Of: ni}, nil
}
