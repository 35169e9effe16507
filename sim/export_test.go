package sim

// SetLook makes s call look each time it looks at Cohort.Stop: with the
// clients set up so far, or the events processed.
func SetLook(s *Sim, look func(setup bool, n uint64)) { s.look = look }

// Pending is how many events s has scheduled and not yet processed.
func Pending(s *Sim) int { return s.q.len() }
