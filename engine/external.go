package engine

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"
)

// ErrRemoteTarget is wrapped by the error for an external target that is
// not on loopback, when the run does not allow remote targets.
var ErrRemoteTarget = errors.New("refusing to send load to a target off this machine")

// IsLoopback reports whether host is a loopback address: 127.0.0.0/8, ::1,
// or the name localhost. Other names are not resolved: a name is trusted to
// be local only if it is localhost.
func IsLoopback(host string) bool {
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// CheckTarget returns an error wrapping ErrRemoteTarget when rawURL's host
// is not loopback and allowRemote is false. It runs before any traffic.
func CheckTarget(rawURL string, allowRemote bool) error {
	u, err := url.Parse(rawURL)
	if err != nil {
		return fmt.Errorf("engine: target %q: %w", rawURL, err)
	}
	if allowRemote || IsLoopback(u.Hostname()) {
		return nil
	}
	return fmt.Errorf("%w: the target %s is not on loopback (127.0.0.0/8, ::1, localhost), and herdbench sends load elsewhere only when told to, so that a run never hits a real service by mistake; if you mean to load %s, pass --allow-remote",
		ErrRemoteTarget, u.Redacted(), u.Hostname())
}

// targetURL returns the URL cohort c's swarm sends to.
func (r *Run) targetURL(c *cohort) string {
	if r.Plan.TargetURL != "" {
		return r.Plan.TargetURL
	}
	return c.target.URL() + "/"
}
