package slowmo

import (
	"testing"
	"time"
)

func TestFactor(t *testing.T) {
	origin := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		f              Factor
		d, wall, scene time.Duration
		on             bool
	}{
		{0, 150 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond, false},
		{1, 150 * time.Millisecond, 150 * time.Millisecond, 150 * time.Millisecond, false},
		{8, 150 * time.Millisecond, 1200 * time.Millisecond, 18750 * time.Microsecond, true},
		{8, 7, 56, 0, true}, // below a nanosecond of scenario time rounds down
		{-3, time.Second, time.Second, time.Second, false},
	} {
		if got := c.f.Wall(c.d); got != c.wall {
			t.Errorf("Factor(%d).Wall(%v) = %v, want %v", c.f, c.d, got, c.wall)
		}
		if got := c.f.Scenario(c.d); got != c.scene {
			t.Errorf("Factor(%d).Scenario(%v) = %v, want %v", c.f, c.d, got, c.scene)
		}
		if got := c.f.On(); got != c.on {
			t.Errorf("Factor(%d).On() = %v, want %v", c.f, got, c.on)
		}
		if got := c.f.Between(origin, c.f.At(origin, c.d)); got != c.d {
			t.Errorf("Factor(%d): Between(At(%v)) = %v, want it back", c.f, c.d, got)
		}
	}
}
