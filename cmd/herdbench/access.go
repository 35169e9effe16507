package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strings"

	"github.com/herdbench/herdbench/control"
	"github.com/herdbench/herdbench/internal/netguard"
	"github.com/herdbench/herdbench/internal/safefile"
)

// tokenEnv is the environment variable that holds the control API's token,
// read by the target and the proxy (when neither --control-token nor
// --control-token-file is given) and by the scenario command's
// --chaos-control.
const tokenEnv = "HERDBENCH_CONTROL_TOKEN"

// minTokenLen is the shortest token accepted: 16 characters of, say, hex
// (openssl rand -hex 16 gives 32).
const minTokenLen = 16

// loadToken returns the control token from a flag's value, a file, or the
// environment, in that order ("" when none is set), and where it came from.
func loadToken(value, file, flagName, fileFlag string) (token, from string, err error) {
	switch {
	case value != "" && file != "":
		return "", "", fmt.Errorf("give the token once: %s or %s, not both", flagName, fileFlag)
	case value != "":
		token, from = value, flagName
	case file != "":
		token, err = readTokenFile(file)
		if err != nil {
			return "", "", fmt.Errorf("%s %s: %w", fileFlag, file, err)
		}
		from = fileFlag
	default:
		token, from = os.Getenv(tokenEnv), tokenEnv
		if token == "" {
			return "", "", nil
		}
	}
	if err := checkToken(token); err != nil {
		return "", "", fmt.Errorf("the token in %s %w", from, err)
	}
	return token, from, nil
}

// checkToken requires a token that fits in an Authorization header and is
// not trivially guessed.
func checkToken(tok string) error {
	for _, r := range tok {
		if r <= ' ' || r > '~' {
			return fmt.Errorf("has a space, a control character or a non-ASCII character; use letters, digits and punctuation only, e.g. from 'openssl rand -hex 16'")
		}
	}
	if len(tok) < minTokenLen {
		return fmt.Errorf("is %d characters long; use at least %d, e.g. from 'openssl rand -hex 16'", len(tok), minTokenLen)
	}
	return nil
}

// readTokenFile reads a token from a regular file of at most 4 KiB
// (safefile's rule for a flag's file: anywhere, but never a FIFO, a device
// or a file of the kernel's); spaces and newlines around it are ignored.
func readTokenFile(path string) (string, error) {
	b, err := safefile.ReadPath(path, 4<<10)
	if errors.Is(err, safefile.ErrTooLarge) {
		return "", errors.New("is larger than 4 KiB; it should hold the token alone")
	}
	if err != nil {
		var se *safefile.Error
		if errors.As(err, &se) {
			return "", errors.New(se.Why) // the caller names the file
		}
		return "", err
	}
	tok := strings.TrimSpace(string(b))
	if tok == "" {
		return "", errors.New("is empty")
	}
	return tok, nil
}

// checkAddr checks a host:port a herdbench command is given (a flag's
// value): its host must be on loopback unless allowRemote. It reports
// whether the address is off loopback; the error says what to do.
func checkAddr(flag, addr string, allowRemote bool) (remote bool, err error) {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false, fmt.Errorf("%s %q: write host:port, e.g. 127.0.0.1:8081 (%w)", flag, addr, err)
	}
	_, err = netguard.Guard{}.Check(context.Background(), host)
	switch {
	case err == nil:
		return false, nil
	case !errors.Is(err, netguard.ErrRemote):
		return false, fmt.Errorf("%s %s: %w", flag, addr, err)
	case !allowRemote:
		return true, fmt.Errorf("%s %s: %w; herdbench serves on loopback only unless told otherwise: use 127.0.0.1:PORT, or pass --allow-remote to serve off loopback", flag, addr, err)
	}
	return true, nil
}

// controlAccess returns who may call a control API whose listener is
// bound to bound, given as addr in --control-addr.
func controlAccess(addr string, bound net.Addr, token string) control.Access {
	a := control.Access{Token: token}
	if ap, err := netip.ParseAddrPort(bound.String()); err == nil {
		a.Bound = ap
	}
	if host, _, err := net.SplitHostPort(addr); err == nil {
		if _, isIP, _ := netguard.CheckHost(host); !isIP && host != "" {
			a.Names = append(a.Names, host)
		}
	}
	if a.Bound.Addr().IsUnspecified() {
		if h, err := os.Hostname(); err == nil {
			a.Names = append(a.Names, h)
		}
	}
	return a
}
