package control

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/secret"
)

// Client calls the control API of a herdbench target or proxy (the server
// side is Handler): herdbench scenario --chaos-control uses it to start a
// proxy's chaos plan at its run's t = 0. It sends what the API's guard
// requires (JSON, the bearer token), connects only where its netguard.Guard
// allows (loopback, unless AllowRemote), never through an environment's
// proxy, and follows no redirect: a redirect is an error that says where it
// pointed. A Client is safe for concurrent use.
type Client struct {
	base  *url.URL
	token string
	http  *http.Client
}

// ClientOptions configure a Client.
type ClientOptions struct {
	// Token is sent as "Authorization: Bearer TOKEN"; "" sends none.
	Token string
	// Guard decides where the client may connect: the host is resolved
	// and checked by NewClient, and each connection again at the address
	// it dials.
	Guard netguard.Guard
	// Timeout bounds each call; 0 means 5 s.
	Timeout time.Duration
}

// APIError is the answer of a control API that refused a call: its HTTP
// status, and its message and problems when it sent them (as the API
// does: {"error": "...", "problems": [...]}).
type APIError struct {
	Method, URL string // the call, with any password in the URL redacted
	Status      int
	StatusText  string // e.g. "401 Unauthorized"
	Message     string // "" when the answer was not the API's JSON
	Problems    []string
}

func (e *APIError) Error() string {
	if e.Message == "" {
		return fmt.Sprintf("%s %s: %s (is this a herdbench proxy or target control address?)", e.Method, e.URL, e.StatusText)
	}
	msg := fmt.Sprintf("%s %s: %s: %s", e.Method, e.URL, e.StatusText, e.Message)
	if len(e.Problems) > 0 {
		msg += ": " + strings.Join(e.Problems, "; ")
	}
	return msg
}

// NewClient returns a client of the control API at raw, an http URL
// (http://HOST:PORT, the server's --control-addr). It checks the URL's
// shape and that its host is one the guard allows: an error wraps
// netguard.ErrRemote when it is off loopback and the guard does not allow
// that.
func NewClient(ctx context.Context, raw string, o ClientOptions) (*Client, error) {
	u, err := url.Parse(raw)
	raw = secret.URL(raw) // quoted below: never with its password
	switch {
	case err != nil:
		return nil, fmt.Errorf("%q is not a URL (%w); write the control API's address as http://HOST:PORT, e.g. http://127.0.0.1:8091", raw, secret.Error(err))
	case u.Scheme != "http":
		return nil, fmt.Errorf("%q: write the control API's address as http://HOST:PORT, e.g. http://127.0.0.1:8091 (the control API speaks plain http)", raw)
	case u.Host == "" || u.User != nil || u.RawQuery != "" || u.Fragment != "":
		return nil, fmt.Errorf("%q: write the control API's address as http://HOST:PORT, e.g. http://127.0.0.1:8091, without user, query or fragment", raw)
	}
	if _, err := o.Guard.Check(ctx, u.Hostname()); err != nil {
		if errors.Is(err, netguard.ErrRemote) {
			return nil, fmt.Errorf("%s is not on loopback (%w); herdbench calls a control API elsewhere only when told to", u.Redacted(), err)
		}
		return nil, fmt.Errorf("%s: %w", u.Redacted(), err)
	}
	timeout := o.Timeout
	if timeout <= 0 {
		timeout = 5 * time.Second
	}
	u.Path = strings.TrimSuffix(u.Path, "/")
	return &Client{base: u, token: o.Token, http: &http.Client{
		Timeout: timeout,
		Transport: &http.Transport{
			Proxy:             nil, // never through an environment's proxy
			DialContext:       o.Guard.DialContext,
			DisableKeepAlives: true,
		},
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			return fmt.Errorf("%s answered with a redirect to %s; herdbench follows no redirects from a control API: give it the address of the proxy's or target's --control-addr itself", via[0].URL.Redacted(), req.URL.Redacted())
		},
	}}, nil
}

// Status returns the server's status: its plan's clock, the faults active
// and coming, its counters.
func (c *Client) Status(ctx context.Context) (*Status, error) {
	return c.call(ctx, http.MethodGet, "/control/status", nil)
}

// Start (re)starts the server's chaos plan so that its t = 0 is at; a zero
// at starts it now. run, when positive, is the length of the caller's run
// from at: the server's recording then knows when its clients cut what
// is in flight (Options.RunFor).
func (c *Client) Start(ctx context.Context, at time.Time, run time.Duration) (*Status, error) {
	req := map[string]any{}
	if !at.IsZero() {
		req["at"] = at.UTC()
	}
	if run > 0 {
		req["duration"] = run.String()
	}
	body, _ := json.Marshal(req)
	return c.call(ctx, http.MethodPost, "/control/start", body)
}

// Stop ends the chaos now: the plan stops and every active fault ends.
func (c *Client) Stop(ctx context.Context) (*Status, error) {
	return c.call(ctx, http.MethodPost, "/control/stop", []byte("{}"))
}

// Inject adds a fault now, written as a scenario's chaos entry, e.g.
// map[string]string{"kind": "outage", "mode": "503", "for": "5s"}; its at
// is a delay from now.
func (c *Client) Inject(ctx context.Context, fault any) (*Status, error) {
	body, err := json.Marshal(fault)
	if err != nil {
		return nil, fmt.Errorf("control: the fault is not JSON: %w", err)
	}
	return c.call(ctx, http.MethodPost, "/control/inject", body)
}

// maxAnswer bounds the answer read from a control API.
const maxAnswer = 1 << 20

func (c *Client) call(ctx context.Context, method, path string, body []byte) (*Status, error) {
	var st Status
	if err := c.do(ctx, method, path, body, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// do makes a call and decodes its answer into out.
func (c *Client) do(ctx context.Context, method, path string, body []byte, out any) error {
	u := *c.base
	u.Path += path
	req, err := http.NewRequestWithContext(ctx, method, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is named below
		}
		return fmt.Errorf("%s %s: %w", method, u.Redacted(), err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if err != nil {
		return fmt.Errorf("%s %s: reading the answer: %w", method, u.Redacted(), err)
	}
	if resp.StatusCode != http.StatusOK {
		e := &APIError{Method: method, URL: u.Redacted(), Status: resp.StatusCode, StatusText: resp.Status}
		var eb errorBody
		if json.Unmarshal(b, &eb) == nil {
			e.Message, e.Problems = eb.Error, eb.Problems
		}
		return e
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("%s %s: the answer is not a control API's (is this a herdbench proxy or target control address?): %w", method, u.Redacted(), err)
	}
	return nil
}
