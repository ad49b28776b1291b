package auth

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"strings"
)

// ErrInsecureListen is returned by CheckListen when --auth none would
// expose the service beyond this machine.
var ErrInsecureListen = errors.New("--auth none on a non-loopback address")

// CheckListen refuses to serve without authentication on any address that
// other machines can reach, unless insecure (the operator's explicit
// --insecure-no-auth) says that is intended. Only literal loopback
// addresses and "localhost" count as local: an empty host listens on every
// interface, and other names are not resolved because what they resolve to
// can change.
func CheckListen(addr string, mode Mode, insecure bool) error {
	if mode != ModeNone || insecure {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("listen address %q: %w", addr, err)
	}
	if isLoopback(host) {
		return nil
	}
	return fmt.Errorf("%w %q: choose --auth token, mtls or jwt, listen on 127.0.0.1, or pass --insecure-no-auth", ErrInsecureListen, addr)
}

func isLoopback(host string) bool {
	if strings.EqualFold(host, "localhost") {
		return true
	}
	// Zones (fe80::1%eth0) are link addresses, never loopback; ParseAddr
	// keeps them and IsLoopback is then false.
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.Unmap().IsLoopback()
}
