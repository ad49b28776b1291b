package main

import (
	"fmt"
	"net"
	"net/url"
	"path/filepath"
	"strconv"
	"strings"
)

// reach fills in what the sandbox must keep from commands, from every
// other setting: the files toold reads its credentials, keys and
// configuration from (whatever directories the sandbox grants, these stay
// unreadable), and the TCP ports of toold's own listeners and of the
// store (never connectable, even with the network on). The operator's
// --sandbox-hide and --sandbox-deny-ports come on top.
func (c *config) reach() error {
	var hidden []string
	for _, p := range []string{
		c.Settings, c.TenantSettings,
		c.Auth.Tokens, c.Auth.TLSKey, c.Auth.TLSCert, c.Auth.TLSClientCA, c.Auth.JWKS,
		c.Audit.Dest,
	} {
		if p == "" || p == "-" {
			continue
		}
		abs, err := filepath.Abs(p)
		if err != nil {
			return err
		}
		hidden = append(hidden, abs)
	}
	c.Sandbox.Hidden = append(hidden, c.Sandbox.Hidden...)

	var ports []int
	for _, l := range []struct{ flag, addr string }{
		{"--listen", c.Listen},
		{"--health-listen", c.Auth.HealthListen},
		{"--metrics-listen", c.Telemetry.MetricsListen},
		{"--mcp-listen", c.MCP.Listen},
	} {
		if l.addr == "" {
			continue
		}
		p, err := addrPort(l.addr)
		if err != nil {
			return fmt.Errorf("%s %q: %w", l.flag, l.addr, err)
		}
		// Port 0 picks a free port at start, which cannot be known
		// here; deployments name their ports.
		if p > 0 {
			ports = append(ports, p)
		}
	}
	if c.RedisURL != "" {
		p, err := redisPort(c.RedisURL)
		if err != nil {
			return fmt.Errorf("--redis-url: %w", err)
		}
		ports = append(ports, p)
	}
	c.Sandbox.DeniedPorts = append(ports, c.Sandbox.DeniedPorts...)
	return nil
}

func addrPort(addr string) (int, error) {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return 0, err
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 0 || p > 65535 {
		return 0, fmt.Errorf("bad port %q", port)
	}
	return p, nil
}

// redisPort is the port of a redis:// or rediss:// URL, 6379 when it
// names none.
func redisPort(raw string) (int, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return 0, err
	}
	port := u.Port()
	if port == "" {
		return 6379, nil
	}
	p, err := strconv.Atoi(port)
	if err != nil || p < 1 || p > 65535 {
		return 0, fmt.Errorf("bad port %q", strings.TrimSpace(port))
	}
	return p, nil
}
