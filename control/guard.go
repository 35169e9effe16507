package control

import (
	"crypto/sha256"
	"crypto/subtle"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// Access is who may use the control API: the address it serves on (for
// the Host and Origin checks) and an optional bearer token.
type Access struct {
	// Bound is the address the control API's listener is bound to.
	Bound netip.AddrPort
	// Names are host names that mean this control address besides IP
	// addresses: the name in --control-addr, if it was one, and for an
	// address on every interface this machine's host name. "localhost" is
	// added for a loopback or every-interface address.
	Names []string
	// Token, when set, must come with every request as
	// "Authorization: Bearer TOKEN".
	Token string
}

// Guard refuses, before next sees it, a request that a web page or a
// stranger could have sent:
//
//   - an absolute-form request target (POST http://host/control/stop, as
//     sent to a forward proxy) whose scheme, host or port is not the
//     control address's own (403): net/http takes such a target's host as
//     the request's Host, whatever the Host header says;
//   - a Host that does not name the control address (403): a page whose
//     own name was made to resolve to this address (DNS rebinding) sends
//     its own name;
//   - Sec-Fetch-Site: cross-site or same-site (403): a browser says so of
//     a request that a page of another site (or of another port or name
//     of this one) makes;
//   - an Origin other than the control address itself (403): a page on
//     another site, which a browser lets send simple POSTs anywhere;
//   - without the token, when one is set (401);
//   - a POST whose Content-Type is not application/json (415): a browser
//     sends only text/plain, form or multipart types across sites without
//     asking first (a CORS preflight, which this API never grants).
//
// The control API is behind it, and so is every other server that lets a
// browser drive a target or proxy (package live's page): one guard, so
// the rules cannot drift apart.
func Guard(a Access, next http.Handler) http.Handler {
	sum := sha256.Sum256([]byte(a.Token))
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if target, ok := absoluteTarget(r); ok && !targetAllowed(target, a) {
			fail(w, http.StatusForbidden, "the request target "+quote(r.RequestURI)+" is absolute-form (a request meant for a forward proxy) and does not name this control address ("+a.Bound.String()+
				"); send the path alone (POST /control/stop HTTP/1.1, Host: "+a.Bound.String()+"), as curl and herdbench do, or http://"+a.Bound.String()+"/control/... in full", nil)
			return
		}
		if !hostAllowed(r.Host, a) {
			fail(w, http.StatusForbidden, "Host "+quote(r.Host)+" does not name this control address ("+a.Bound.String()+
				"); send the request to http://"+a.Bound.String()+"/ or to a name given in --control-addr (a different Host is how a DNS-rebinding web page reaches a local API)", nil)
			return
		}
		if site := strings.ToLower(strings.TrimSpace(r.Header.Get("Sec-Fetch-Site"))); site == "cross-site" || site == "same-site" {
			fail(w, http.StatusForbidden, "Sec-Fetch-Site: "+site+": a browser sent this request for a web page of another site or origin, which may not use the control API; "+
				"call it from curl or herdbench, or from a page served at http://"+r.Host+"/ itself (Sec-Fetch-Site: same-origin)", nil)
			return
		}
		if o := r.Header.Values("Origin"); len(o) > 0 && !originAllowed(o, r.Host) {
			fail(w, http.StatusForbidden, "Origin "+quote(strings.Join(o, ", "))+" is not this control address (http://"+r.Host+"): requests from web pages of other sites are refused; send it from curl or herdbench, without an Origin", nil)
			return
		}
		if a.Token != "" && !tokenMatches(r.Header.Get("Authorization"), sum) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="herdbench control"`)
			fail(w, http.StatusUnauthorized, "this control API needs its token: send \"Authorization: Bearer TOKEN\" (curl -H \"Authorization: Bearer $HERDBENCH_CONTROL_TOKEN\"; herdbench scenario --chaos-control reads HERDBENCH_CONTROL_TOKEN or --chaos-control-token-file)", nil)
			return
		}
		if r.Method == http.MethodPost && !isJSON(r.Header.Get("Content-Type")) {
			ct := r.Header.Get("Content-Type")
			if ct == "" {
				ct = "none"
			}
			fail(w, http.StatusUnsupportedMediaType, "a POST to the control API needs \"Content-Type: application/json\" (got "+ct+"); with curl: -H 'Content-Type: application/json'", nil)
			return
		}
		next.ServeHTTP(w, r)
	})
}

func quote(s string) string {
	if len(s) > 100 {
		s = s[:100] + "..."
	}
	return `"` + strings.ToValidUTF8(s, "?") + `"`
}

// hostAllowed reports whether host (a Host header, with or without its
// port) names the control address: an IP address the listener is bound to
// (any of this machine's, for an address on every interface; any loopback
// one, for a loopback address), localhost for a loopback or every-interface
// address, or one of the names. The port is not compared: a rebinding page
// uses the API's own port, and a tunnel or forwarded port may change it.
func hostAllowed(host string, a Access) bool {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), ".")
	if host == "" {
		return false
	}
	bound := a.Bound.Addr().Unmap()
	if ip, err := netip.ParseAddr(host); err == nil {
		ip = ip.WithZone("").Unmap()
		switch {
		case bound.IsUnspecified():
			return true // an IP address cannot be rebound: it names no page's site
		case bound.IsLoopback():
			return ip.IsLoopback()
		}
		return ip == bound
	}
	if host == "localhost" && (bound.IsLoopback() || bound.IsUnspecified()) {
		return true
	}
	for _, n := range a.Names {
		if strings.TrimSuffix(strings.ToLower(n), ".") == host {
			return true
		}
	}
	return false
}

// absoluteTarget returns the request's target when it is in absolute form
// (RFC 9112 3.2.2: "http://host/path", as sent to a forward proxy), parsed.
func absoluteTarget(r *http.Request) (*url.URL, bool) {
	if r.RequestURI == "" || strings.HasPrefix(r.RequestURI, "/") || r.RequestURI == "*" {
		return nil, false
	}
	u, err := url.ParseRequestURI(r.RequestURI)
	if err != nil {
		return &url.URL{}, true // refused: it names no host of ours
	}
	return u, true
}

// targetAllowed reports whether an absolute-form target names the control
// address itself: http, its own host and the listener's own port (80 when
// the target gives none). Unlike a Host header, which a tunnel or a
// forwarded port rewrites, nothing between a client and this API writes
// an absolute target: so its port is compared, and its host must be one
// the listener is reached at (ownHost), not any address hostAllowed lets
// a Host header name (another loopback address, any address of a listener
// on every interface).
func targetAllowed(u *url.URL, a Access) bool {
	if u.Scheme != "http" || u.User != nil || u.Host == "" || !ownHost(u.Host, a) {
		return false
	}
	_, port := splitHostPort(u.Host)
	return a.Bound.Port() != 0 && port == strconv.Itoa(int(a.Bound.Port()))
}

// ownHost reports whether host (with or without its port) is one the
// listener is reached at: the IP address it is bound to (for an address on
// every interface, one of this machine's, interfaceIP), localhost for a
// loopback or every-interface address, or one of the names.
func ownHost(host string, a Access) bool {
	h, _ := splitHostPort(host)
	if h == "" {
		return false
	}
	bound := a.Bound.Addr().Unmap()
	if ip, err := netip.ParseAddr(h); err == nil {
		ip = ip.WithZone("").Unmap()
		if bound.IsUnspecified() {
			return interfaceIP(ip)
		}
		return ip == bound
	}
	return hostAllowed(host, a) // a name: localhost, or one of the names
}

// interfaceIP reports whether ip is an address of one of this machine's
// network interfaces (loopback included); a variable for tests.
var interfaceIP = func(ip netip.Addr) bool {
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		return ip.IsLoopback()
	}
	for _, a := range addrs {
		if p, err := netip.ParsePrefix(a.String()); err == nil && p.Addr().Unmap() == ip {
			return true
		}
	}
	return false
}

// originAllowed reports whether the request's Origin is the control
// address itself: http, the same host and port as its Host header (80 for
// either when it gives none, as a browser omits it from an Origin), host
// names compared without case or a final dot, so that a page served at
// http://localhost:PORT/ may call the API it came from.
func originAllowed(origins []string, host string) bool {
	if len(origins) != 1 {
		return false
	}
	u, err := url.Parse(origins[0])
	if err != nil || u.Scheme != "http" || u.Path != "" || u.User != nil || u.RawQuery != "" || u.Fragment != "" || u.Host == "" {
		return false // "null" (a sandboxed or file page) parses with no scheme
	}
	oh, op := splitHostPort(u.Host)
	hh, hp := splitHostPort(host)
	return oh != "" && oh == hh && op == hp
}

// splitHostPort returns a Host header's or URL's host, lower case without
// brackets or a final dot, and its port, "80" when it has none.
func splitHostPort(hostport string) (host, port string) {
	host, port = hostport, "80"
	if h, p, err := net.SplitHostPort(hostport); err == nil {
		host, port = h, p
		if port == "" {
			port = "80"
		}
	}
	return strings.TrimSuffix(strings.ToLower(strings.Trim(host, "[]")), "."), port
}

func tokenMatches(header string, want [sha256.Size]byte) bool {
	scheme, tok, ok := strings.Cut(header, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	got := sha256.Sum256([]byte(strings.TrimSpace(tok)))
	return subtle.ConstantTimeCompare(got[:], want[:]) == 1
}

func isJSON(contentType string) bool {
	mt, _, err := mime.ParseMediaType(contentType)
	return err == nil && mt == "application/json"
}
