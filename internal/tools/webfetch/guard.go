package webfetch

import (
	"fmt"
	"net/netip"
	"strings"
	"syscall"
)

// blockedRange is a range of addresses WebFetch does not connect to unless
// the operator allows it: reaching them from a server means reaching the
// server's own machine, its network, or its cloud's metadata service,
// which a URL chosen by a model must not do.
type blockedRange struct {
	prefix netip.Prefix
	what   string
}

var blockedRanges = func() []blockedRange {
	var out []blockedRange
	for _, r := range []struct{ cidr, what string }{
		// The metadata services first, so they are named as such.
		{"169.254.169.254/32", "a cloud metadata address"},
		{"fd00:ec2::254/128", "a cloud metadata address"},
		{"0.0.0.0/8", "an unspecified (this-network) address"},
		{"10.0.0.0/8", "a private address"},
		{"100.64.0.0/10", "a shared (carrier-grade NAT) address"},
		{"127.0.0.0/8", "a loopback address"},
		{"169.254.0.0/16", "a link-local address"},
		{"172.16.0.0/12", "a private address"},
		{"192.0.0.0/24", "an IETF protocol address"},
		{"192.168.0.0/16", "a private address"},
		{"198.18.0.0/15", "a benchmarking address"},
		{"224.0.0.0/4", "a multicast address"},
		{"240.0.0.0/4", "a reserved address"},
		{"::/128", "the unspecified address"},
		{"::1/128", "a loopback address"},
		{"fc00::/7", "a unique local (private) address"},
		{"fe80::/10", "a link-local address"},
		{"fec0::/10", "a site-local address"},
		{"ff00::/8", "a multicast address"},
	} {
		out = append(out, blockedRange{netip.MustParsePrefix(r.cidr), r.what})
	}
	return out
}()

// nat64 is the well-known NAT64 prefix: its addresses reach the IPv4
// address in their last 32 bits, which is checked in their place.
var nat64 = netip.MustParsePrefix("64:ff9b::/96")

// guard decides which addresses WebFetch may connect to.
type guard struct {
	allow []netip.Prefix
}

// blockedError is a refused connection. It reaches the tool through the
// dial error chain, so the result can say what was refused and why.
type blockedError struct {
	addr netip.Addr
	what string
}

func (e *blockedError) Error() string {
	return fmt.Sprintf("connection to %s refused: it is %s", e.addr, e.what)
}

// check returns a *blockedError for an address in a blocked range that no
// allowed prefix covers.
func (g *guard) check(a netip.Addr) error {
	a = a.Unmap().WithZone("")
	if g.allowed(a) {
		return nil
	}
	probe := a
	if nat64.Contains(a) {
		b := a.As16()
		probe = netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]})
		if g.allowed(probe) {
			return nil
		}
	}
	for _, r := range blockedRanges {
		if r.prefix.Contains(probe) {
			return &blockedError{addr: a, what: r.what}
		}
	}
	return nil
}

// allowed reports whether the operator allowed a, and so whether a plain
// http URL to it is kept as it is (see upgrade).
func (g *guard) allowed(a netip.Addr) bool {
	a = a.Unmap().WithZone("")
	for _, p := range g.allow {
		if p.Contains(a) {
			return true
		}
	}
	return false
}

// control is the dialer's Control hook. It runs after name resolution,
// just before connect(2), on the address actually connected to: a name
// that resolves to a public address for a policy check and to a private
// one for the connection (DNS rebinding) is caught here all the same.
func (g *guard) control(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("connection to %q refused: not an IP address and port", address)
	}
	return g.check(ap.Addr())
}

// ParseCIDRs parses the operator's allowance list: CIDR prefixes, or
// single addresses meaning just that address.
func ParseCIDRs(list []string) ([]netip.Prefix, error) {
	var out []netip.Prefix
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if p, err := netip.ParsePrefix(s); err == nil {
			out = append(out, p.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil {
			return nil, fmt.Errorf("webfetch: %q is neither a CIDR prefix nor an IP address", s)
		}
		a = a.Unmap()
		out = append(out, netip.PrefixFrom(a, a.BitLen()))
	}
	return out, nil
}
