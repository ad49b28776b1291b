package sandbox

import (
	"log/slog"
	"strings"
)

// Status says which protections commands get on this machine, for the log
// at start and for the server's information RPC.
type Status struct {
	Mode Mode
	// LandlockABI is the kernel's Landlock ABI version; 0 when it has
	// none or it is not enabled.
	LandlockABI int
	// Landlock: commands may write only in their session's directories
	// and temporary directory, and read only the system's directories.
	Landlock bool
	// Network is the operator's setting; NetworkDenied says whether
	// commands are actually kept from TCP connect and bind (Landlock ABI
	// 4 or later).
	Network       bool
	NetworkDenied bool
	// Hidden are the paths no command may read or write (toold's
	// credentials and configuration); HiddenEnforced says Landlock keeps
	// them, not only file permissions.
	Hidden         []string
	HiddenEnforced bool
	// DeniedPorts are the TCP ports commands may not connect to (toold's
	// listeners, the store); PortsDenied says Landlock enforces it. With
	// the network off every port is denied.
	DeniedPorts []int
	PortsDenied bool
	// UserSwitch: commands run as User (UID, GID) instead of toold's
	// root. When toold is not root, commands run as toold's user and
	// UserSwitch is false.
	UserSwitch bool
	User       string
	UID, GID   int
	// Cgroup: each command gets its own cgroup v2, killed as a whole at
	// the end of the call. CgroupDir is where they are made.
	Cgroup    bool
	CgroupDir string
	// SweptCgroups counts the cgroups of dead toolds (SIGKILLed, crashed)
	// whose leftover commands were killed at start.
	SweptCgroups int
	// MemoryMax and PidsMax say whether those cgroup limits are enforced.
	MemoryMax bool
	PidsMax   bool
	// Subreaper: no cgroup, so toold is a child subreaper and kills what
	// a finished command leaves behind.
	Subreaper bool
	// Limits are the limits applied to each command.
	Limits Limits
	// Missing lists, one sentence each, the protections this machine
	// lacks and why.
	Missing []string
}

// LogValue lets the status be logged as one structured record.
func (s Status) LogValue() slog.Value {
	return slog.GroupValue(
		slog.String("mode", string(s.Mode)),
		slog.Int("landlock_abi", s.LandlockABI),
		slog.Bool("landlock", s.Landlock),
		slog.Bool("network", s.Network),
		slog.Bool("network_denied", s.NetworkDenied),
		slog.Any("hidden", s.Hidden),
		slog.Bool("hidden_enforced", s.HiddenEnforced),
		slog.Any("denied_ports", s.DeniedPorts),
		slog.Bool("ports_denied", s.PortsDenied),
		slog.Bool("user_switch", s.UserSwitch),
		slog.String("user", s.User),
		slog.Bool("cgroup", s.Cgroup),
		slog.String("cgroup_dir", s.CgroupDir),
		slog.Int("swept_cgroups", s.SweptCgroups),
		slog.Bool("memory_max", s.MemoryMax),
		slog.Bool("pids_max", s.PidsMax),
		slog.Bool("subreaper", s.Subreaper),
		slog.String("missing", strings.Join(s.Missing, "; ")),
	)
}
