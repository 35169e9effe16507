package spoken

import "testing"

func TestCount(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 problems"}, {1, "1 problem"}, {2, "2 problems"}, {-1, "-1 problems"}, {21, "21 problems"}} {
		if got := Count(tc.n, "problem", "problems"); got != tc.want {
			t.Errorf("Count(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
	if got := Count(int64(1), "answer", "answers"); got != "1 answer" {
		t.Errorf("Count(int64(1)) = %q", got)
	}
}
