package results

// tierRuns returns the figures of each tier of cohort c, whose own figures
// (the first tier's) are top: each a Run of the calls into the tier
// (Run.Tiers), its wasted work left to the engine.
func tierRuns(c Cohort, w Window, top *Run) []Run {
	out := make([]Run, len(c.Tiers))
	for k, name := range c.Tiers {
		t := *top
		if k > 0 {
			t = Summarize(Cohort{Strategy: c.Strategy, Rec: c.Below[k-1]}, w)
		}
		t.Tier, t.WastedWork, t.Amplification = name, 0, 0
		if top.Requests > 0 {
			t.Amplification = round(float64(t.Attempts)/float64(top.Requests), 3)
		}
		out[k] = t
	}
	return out
}

// Bottom returns the figures of the bottom tier of a chain, or nil for a
// single target.
func (r *Run) Bottom() *Run {
	if len(r.Tiers) == 0 {
		return nil
	}
	return &r.Tiers[len(r.Tiers)-1]
}
