package seeds

import "math/rand/v2"

// Stream ids under a seed. Clients use their id (Client); the processes
// that are not clients have ids far above any client's.
const (
	Arrivals uint64 = 1 << 62 // the open workload's arrival process
	Target   uint64 = 1 << 63 // the embedded target (or a standalone one, or a proxy)
)

// TierTarget returns the stream id of the target model of tier k (from 0,
// the tier the clients call) of a chain of tiers, for every tier but the
// bottom one, which draws from Target as a single target does: a chain of
// one tier is the single target, draw for draw.
func TierTarget(k int) uint64 { return Target + 1 + uint64(k) }

// Call returns the stream id of the n-th call (from 0) that tier k of a
// chain of tiers makes to the next tier: each call is a fresh client of
// the tier's strategy, with its own stream, as each arrival of an open
// workload is. The ids lie between every client's and Arrivals.
func Call(k, n int) uint64 { return 1<<61 + uint64(k)<<40 + uint64(n) }

// User returns the stream id of the random stream package herdtest hands
// client id's own code (herdtest.Client.Rand), apart from the one its
// think times draw from (Client(id)). The ids lie between the calls' and
// Arrivals.
func User(id int) uint64 { return 1<<61 + 1<<60 + uint64(id) }

// Channel returns the stream id of the grpc-go channel whose first client
// is id, which draws its reconnection backoff's jitter (the simulator's
// model of a channel). The ids lie between the calls' and the users'.
func Channel(id int) uint64 { return 1<<61 + 1<<59 + uint64(id) }

// Client returns the stream id of client id of a cohort. Client i draws the
// same numbers in every cohort of a run, so cohorts differ only by strategy.
func Client(id int) uint64 { return uint64(id) }

// Stream returns the random stream id under seed.
func Stream(seed, id uint64) *rand.Rand { return rand.New(rand.NewPCG(seed, id)) }

// Place makes *r the stream id under seed, with src as its source, without
// allocating: for callers that keep many streams in place (the simulator's
// slab of clients). r then draws what Stream(seed, id) draws; it keeps
// src's address, so src must not move while r is used.
func Place(r *rand.Rand, src *rand.PCG, seed, id uint64) {
	src.Seed(seed, id)
	*r = *rand.New(src)
}

// Rep returns the seed of repetition rep (from 0) of a run with root seed
// root: the root itself for the first, then a fixed mix of both
// (splitmix64), so repetitions are independent and the whole batch repeats
// from the root.
func Rep(root uint64, rep int) uint64 {
	if rep == 0 {
		return root
	}
	z := root + uint64(rep)*0x9e3779b97f4a7c15
	z = (z ^ z>>30) * 0xbf58476d1ce4e5b9
	z = (z ^ z>>27) * 0x94d049bb133111eb
	return (z ^ z>>31) >> 11 // 53 bits: exact in JSON numbers
}

// Draw returns a fresh random root seed, for a run that names none. It has
// 53 bits, so it is exact in JSON numbers and in every language's floats.
func Draw() uint64 { return rand.Uint64() >> 11 }

// Resolve returns the root seed of a run: the first of choices that is set
// (the command passes --seed, then the scenario's seed), or a fresh one
// from Draw when none is.
func Resolve(choices ...*uint64) uint64 {
	for _, c := range choices {
		if c != nil {
			return *c
		}
	}
	return Draw()
}
