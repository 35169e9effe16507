package engine

import (
	"context"
	"errors"
	"fmt"
	"net/url"

	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/secret"
	"github.com/herdbench/herdbench/scenarios"
)

// ErrRemoteTarget is wrapped by the error for an external target that is
// not on loopback, when the run does not allow remote targets.
var ErrRemoteTarget = errors.New("refusing to send load to a target off this machine")

// CheckTarget resolves rawURL's host and returns an error wrapping
// ErrRemoteTarget when any address it resolves to is off loopback and
// allowRemote is false (see package netguard: the decision is made on the
// addresses, not on how the host is spelt). It runs before any traffic;
// the swarm's dialer checks each address again as it connects.
func CheckTarget(rawURL string, allowRemote bool) error {
	return checkTarget(context.Background(), rawURL, netguard.Guard{AllowRemote: allowRemote})
}

func checkTarget(ctx context.Context, rawURL string, g netguard.Guard) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("engine: target %q: %w", secret.URL(rawURL), secret.Error(err))
	}
	if g.AllowRemote {
		// Anywhere is allowed; only a host whose meaning depends on who
		// reads it is refused.
		if _, _, err := netguard.CheckHost(u.Hostname()); err != nil {
			return fmt.Errorf("engine: the target %s: %w", secret.URL(rawURL), err)
		}
		return nil
	}
	_, err = g.Check(ctx, u.Hostname())
	switch {
	case err == nil:
		return nil
	case errors.Is(err, netguard.ErrRemote):
		return fmt.Errorf("%w: the target %s is not on loopback (%w), and herdbench sends load elsewhere only when told to, so that a run never hits a real service by mistake; if you mean to load %s, pass --allow-remote",
			ErrRemoteTarget, secret.URL(rawURL), err, u.Hostname())
	default:
		return fmt.Errorf("engine: the target %s cannot be checked to be on loopback: %w", secret.URL(rawURL), err)
	}
}

// guard returns the loopback interlock of plan p's run.
func guard(p *scenarios.Plan, o Options) netguard.Guard {
	return netguard.Guard{AllowRemote: p.AllowRemote, Resolver: o.Resolver}
}

// targetURL returns the URL cohort c's swarm sends to.
func (r *Run) targetURL(c *cohort) string {
	if r.Plan.TargetURL != "" {
		return r.Plan.TargetURL
	}
	if c.chain != nil {
		return c.chain.entry().URL() + "/"
	}
	return c.target.URL() + "/"
}
