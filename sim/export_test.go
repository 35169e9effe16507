package sim

// SetLook makes s call look each time it looks at Cohort.Stop: with the
// clients set up so far, or the events processed.
func SetLook(s *Sim, look func(setup bool, n uint64)) { s.look = look }
