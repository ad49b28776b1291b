package sandbox

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// setupReach records what commands may never reach in the pod besides
// the file system outside their session: toold's own files (Hidden) and
// toold's and the store's ports (DeniedPorts), and reports what this
// kernel cannot enforce.
func (l *Launcher) setupReach(opts Options) error {
	st := &l.status
	for _, p := range opts.Hidden {
		if p == "" {
			continue
		}
		if !filepath.IsAbs(p) {
			return fmt.Errorf("sandbox: hidden path %q must be absolute", p)
		}
		if p = filepath.Clean(p); !slices.Contains(st.Hidden, p) {
			st.Hidden = append(st.Hidden, p)
		}
	}
	st.HiddenEnforced = st.Landlock && len(st.Hidden) > 0
	if len(st.Hidden) > 0 && !st.Landlock {
		l.miss(fmt.Sprintf("hidden files: without Landlock only file permissions keep commands from toold's credentials and configuration (%s)", strings.Join(st.Hidden, ", ")))
	}
	for _, p := range opts.DeniedPorts {
		if p < 1 || p > 65535 {
			return fmt.Errorf("sandbox: denied port %d: want 1..65535", p)
		}
		if !slices.Contains(st.DeniedPorts, p) {
			st.DeniedPorts = append(st.DeniedPorts, p)
			l.deniedPorts = append(l.deniedPorts, uint16(p))
		}
	}
	slices.Sort(st.DeniedPorts)
	switch {
	case len(st.DeniedPorts) == 0:
	case !opts.Network:
		// Every port is denied with the network.
		st.PortsDenied = st.NetworkDenied
	case st.LandlockABI >= 4:
		st.PortsDenied = true
	default:
		ports := make([]string, len(st.DeniedPorts))
		for i, p := range st.DeniedPorts {
			ports[i] = strconv.Itoa(p)
		}
		l.miss(fmt.Sprintf("ports: commands can connect to toold's own and the store's TCP ports (%s): Landlock ABI %d has no TCP rules (ABI 4, Linux 6.7, is needed)", strings.Join(ports, ", "), st.LandlockABI))
	}
	return nil
}

// portLayer is the ruleset of the denied ports, shared by every session;
// fd -1 when the network is off (the session's own ruleset denies it all),
// no port is denied or the kernel cannot.
func (l *Launcher) portLayer() (layer, error) {
	st := &l.status
	if !st.Network || !st.PortsDenied || !st.Landlock {
		return layer{fd: -1}, nil
	}
	l.portsOnce.Do(func() { l.ports, l.portsErr = portRuleset(l.deniedPorts) })
	return l.ports, l.portsErr
}
