package results

import "testing"

func TestDecideFollowsTheSelfCheck(t *testing.T) {
	if v := Decide(&Summary{}); v != nil || !v.Trusted() {
		t.Fatalf("a run without a self-check (virtual time): verdict %+v, want none, trusted", v)
	}
	v := Decide(&Summary{Harness: &Harness{Trustworthy: true}})
	if v.Outcome != Holds || !v.Trusted() {
		t.Errorf("a run whose harness kept up: %+v, want holds", v)
	}
	v = Decide(&Summary{Harness: &Harness{Warnings: []string{"no-jitter: sent late."}}})
	if v.Outcome != NotTrustworthy || v.Trusted() || v.Sentence != "NOT TRUSTWORTHY: no-jitter: sent late." {
		t.Errorf("a run whose harness fell behind: %+v, want not_trustworthy with the first warning", v)
	}
}
