package sandbox

import (
	"fmt"
	"strings"
)

// Mode says how much confinement toold insists on.
type Mode string

const (
	// ModeOff runs commands as toold's own user with no confinement
	// beyond their own process group.
	ModeOff Mode = "off"
	// ModeBestEffort applies every protection this machine allows and
	// reports the ones it lacks.
	ModeBestEffort Mode = "best-effort"
	// ModeRequired refuses to start when any protection is missing.
	ModeRequired Mode = "required"
)

// ParseMode reads a --sandbox value.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case ModeOff, ModeBestEffort, ModeRequired:
		return m, nil
	case "":
		return ModeBestEffort, nil
	}
	return "", fmt.Errorf("sandbox mode %q: want off, best-effort or required", s)
}

// Limits bound the resources of one command. Zero leaves a resource as
// toold has it (unlimited unless toold itself is limited).
type Limits struct {
	// CPUSeconds is RLIMIT_CPU: CPU time of each process, in seconds.
	CPUSeconds uint64
	// AddressSpace is RLIMIT_AS in bytes. Runtimes that reserve large
	// address ranges up front (V8, the JVM, WebAssembly) fail under a
	// tight value; MemoryMax is the better bound where cgroups exist.
	AddressSpace uint64
	// OpenFiles is RLIMIT_NOFILE.
	OpenFiles uint64
	// Processes is RLIMIT_NPROC. Linux counts it per user across the
	// whole machine, so it only makes sense when commands run as their
	// own user; it is not applied otherwise.
	Processes uint64
	// FileSize is RLIMIT_FSIZE in bytes: the largest file a command may
	// write.
	FileSize uint64
	// MemoryMax is the cgroup's memory.max in bytes (zero: no limit).
	MemoryMax int64
	// PidsMax is the cgroup's pids.max (zero: no limit).
	PidsMax int64
}

// DefaultLimits are the limits proposed as flag defaults: generous enough
// for builds and test suites, tight enough that a fork bomb or a runaway
// writer stops.
func DefaultLimits() Limits {
	return Limits{
		OpenFiles: 65536,
		Processes: 4096,
		FileSize:  16 << 30,
		PidsMax:   4096,
	}
}

// Options configure a Launcher.
type Options struct {
	Mode Mode
	// User is the account commands run as when toold runs as root.
	// Empty: "nobody".
	User string
	// Limits bound each command.
	Limits Limits
	// Network, when false, denies TCP connect and bind (and UDP where the
	// kernel's Landlock covers it) to commands.
	Network bool
	// ReadDirs are readable and executable for commands in addition to
	// the system's directories (DefaultReadDirs).
	ReadDirs []string
	// WriteDirs are writable for every command in addition to the
	// session's directories and its temporary directory.
	WriteDirs []string
	// StateDir is where the per-session temporary directories are made.
	// Empty: os.TempDir().
	StateDir string
	// Executable is the binary that implements the helper subcommand.
	// Empty: os.Executable().
	Executable string
	// HelperArgs are the arguments that select the helper subcommand.
	// Empty: {HelperCommand}.
	HelperArgs []string
	// HelperEnv is the helper's whole environment (a command's own comes
	// with its request). Tests use it to make the test binary act as
	// toold.
	HelperEnv []string
	// WarmHelpers is how many helpers are kept started ahead of need,
	// where commands run through the helper. 0: DefaultWarmHelpers;
	// negative: none, each command waits for its helper to start.
	WarmHelpers int
	// Hidden are files and directories that commands may never read or
	// write, whatever the read and write directories (the session's
	// included) grant: toold's credentials, TLS keys and configuration.
	// With Landlock they are cut out of every grant; without it only
	// file permissions keep them.
	Hidden []string
	// DeniedPorts are TCP ports commands may never connect to, on any
	// address, while the network is on: toold's own listeners and the
	// store's. Landlock (ABI 4) expresses it; without it Status reports
	// the ports as reachable.
	DeniedPorts []int
	// CgroupDir overrides the cgroup v2 directory under which command
	// cgroups are made. Empty: toold's own cgroup. "-" disables cgroups,
	// which selects the subreaper fallback.
	CgroupDir string
}

// DefaultWarmHelpers is the number of helpers kept started ahead.
const DefaultWarmHelpers = 2

// HelperCommand is the hidden toold subcommand that runs HelperMain.
const HelperCommand = "sandbox-exec"

// DefaultReadDirs are the system directories commands may read and execute
// from. /run and /var are left out: they hold mounted secrets and other
// services' sockets in many containers.
var DefaultReadDirs = []string{
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/etc", "/opt", "/proc", "/sys", "/nix", "/snap",
	"/dev",
}
