package main

import (
	"flag"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/toold/toold/internal/sandbox"
)

// sandboxFlags are the --sandbox-* flags as registered; config turns them
// into sandbox.Options.
type sandboxFlags struct {
	mode, user, readDirs, writeDirs, stateDir, cgroup *string
	hide, denyPorts                                   *string
	helper                                            *string
	network                                           *bool
	warmHelpers                                       *int
	cpu, nofile, nproc                                *uint64
	pidsMax                                           *int64
	as, fsize, memoryMax                              *byteSize
}

func addSandboxFlags(fs *flag.FlagSet) *sandboxFlags {
	def := sandbox.DefaultLimits()
	f := &sandboxFlags{
		mode:        fs.String("sandbox", "best-effort", "confinement of Bash and background commands: off, best-effort (use what this machine allows) or required (refuse to start when a protection is missing)"),
		user:        fs.String("sandbox-user", "nobody", "account commands run as when toold runs as root"),
		network:     fs.Bool("sandbox-network", true, "let commands use the network; false denies TCP connect and bind (Landlock ABI 4 or later)"),
		cpu:         fs.Uint64("sandbox-rlimit-cpu", 0, "RLIMIT_CPU of each command process, in seconds (0: none)"),
		nofile:      fs.Uint64("sandbox-rlimit-nofile", def.OpenFiles, "RLIMIT_NOFILE of each command (0: toold's)"),
		nproc:       fs.Uint64("sandbox-rlimit-nproc", def.Processes, "RLIMIT_NPROC of the user commands run as, which counts all of that user's processes (0: none; not applied to commands that run as root)"),
		pidsMax:     fs.Int64("sandbox-pids-max", def.PidsMax, "cgroup pids.max of each command (0: none)"),
		readDirs:    fs.String("sandbox-read-dirs", "", "comma-separated directories commands may read and execute from, besides the system's"),
		writeDirs:   fs.String("sandbox-write-dirs", "", "comma-separated directories every command may write, besides its session's"),
		stateDir:    fs.String("sandbox-state-dir", "", "where the per-session HOME and TMPDIR of commands are made (default: the system's temporary directory)"),
		cgroup:      fs.String("sandbox-cgroup", "", "cgroup v2 directory under which command cgroups are made (default: toold's own; - turns cgroups off)"),
		helper:      fs.String("sandbox-helper", "", "the sandbox helper binary (default: toold-sandbox beside toold's binary when it is there, else toold itself)"),
		warmHelpers: fs.Int("sandbox-warm-helpers", sandbox.DefaultWarmHelpers, "helpers kept started and idle where commands run through the helper (no writable cgroup); 0 starts one per command"),
		hide:        fs.String("sandbox-hide", "", "comma-separated files and directories commands may never read or write, besides toold's own credentials and configuration (which are always hidden)"),
		denyPorts:   fs.String("sandbox-deny-ports", "", "comma-separated TCP ports commands may never connect to, besides toold's own listeners and the store's (which are always denied)"),
		as:          new(byteSize),
		fsize:       new(byteSize),
		memoryMax:   new(byteSize),
	}
	*f.fsize = byteSize(def.FileSize)
	fs.Var(f.as, "sandbox-rlimit-as", "RLIMIT_AS of each command process, e.g. 8GiB (0: none)")
	fs.Var(f.fsize, "sandbox-rlimit-fsize", "largest file a command may write (RLIMIT_FSIZE; 0: none)")
	fs.Var(f.memoryMax, "sandbox-memory-max", "cgroup memory.max of each command, e.g. 4GiB (0: none)")
	return f
}

// config checks the flags and builds the launcher's options.
func (f *sandboxFlags) config() (sandbox.Options, error) {
	mode, err := sandbox.ParseMode(*f.mode)
	if err != nil {
		return sandbox.Options{}, fmt.Errorf("--sandbox: %w", err)
	}
	if *f.pidsMax < 0 {
		return sandbox.Options{}, fmt.Errorf("--sandbox-pids-max %d: want 0 or more", *f.pidsMax)
	}
	if *f.warmHelpers < 0 {
		return sandbox.Options{}, fmt.Errorf("--sandbox-warm-helpers %d: want 0 or more", *f.warmHelpers)
	}
	if uint64(*f.memoryMax) > math.MaxInt64 {
		return sandbox.Options{}, fmt.Errorf("--sandbox-memory-max: too large")
	}
	opts := sandbox.Options{
		Mode:    mode,
		User:    *f.user,
		Network: *f.network,
		Limits: sandbox.Limits{
			CPUSeconds:   *f.cpu,
			AddressSpace: uint64(*f.as),
			OpenFiles:    *f.nofile,
			Processes:    *f.nproc,
			FileSize:     uint64(*f.fsize),
			MemoryMax:    int64(*f.memoryMax),
			PidsMax:      *f.pidsMax,
		},
		ReadDirs:   splitList(*f.readDirs),
		WriteDirs:  splitList(*f.writeDirs),
		StateDir:   *f.stateDir,
		CgroupDir:  *f.cgroup,
		Executable: helperBinary(*f.helper),
		// 0 means the default to the package; none is negative.
		WarmHelpers: *f.warmHelpers,
	}
	opts.Hidden = splitList(*f.hide)
	for _, p := range splitList(*f.denyPorts) {
		n, err := strconv.Atoi(p)
		if err != nil || n < 1 || n > 65535 {
			return sandbox.Options{}, fmt.Errorf("--sandbox-deny-ports: %q is not a port (1..65535)", p)
		}
		opts.DeniedPorts = append(opts.DeniedPorts, n)
	}
	if opts.WarmHelpers == 0 {
		opts.WarmHelpers = -1
	}
	for _, d := range append(append(append([]string{opts.StateDir}, opts.ReadDirs...), opts.WriteDirs...), opts.Hidden...) {
		if d != "" && !filepath.IsAbs(d) {
			return sandbox.Options{}, fmt.Errorf("sandbox directory %q must be an absolute path", d)
		}
	}
	if *f.helper != "" && !isExecutable(*f.helper) {
		return sandbox.Options{}, fmt.Errorf("--sandbox-helper %q: not an executable file", *f.helper)
	}
	if opts.CgroupDir != "" && opts.CgroupDir != "-" && !filepath.IsAbs(opts.CgroupDir) {
		return sandbox.Options{}, fmt.Errorf("--sandbox-cgroup %q: want an absolute path or -", opts.CgroupDir)
	}
	return opts, nil
}

// newLauncher probes the machine and starts the sandbox. In required mode
// a missing protection is a configuration problem (exit status 2).
func newLauncher(opts sandbox.Options, log *slog.Logger) (*sandbox.Launcher, error) {
	l, err := sandbox.New(opts, log)
	if err != nil {
		if opts.Mode == sandbox.ModeRequired {
			return nil, configError{err}
		}
		return nil, err
	}
	return l, nil
}

// checkWorkspaceRoot makes sure the sandbox user can reach the sessions'
// workspaces: a directory above the root that it cannot pass through
// (a 0700 home or temporary directory) would make every command fail at
// its start. In required mode that stops toold; in best-effort mode it is
// logged, since file tools still work.
func checkWorkspaceRoot(l *sandbox.Launcher, root string, log *slog.Logger) error {
	st := l.Status()
	if !l.Enabled() || !st.UserSwitch {
		return nil
	}
	for d := root; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil {
			return err
		}
		if !passable(fi, st.UID, st.GID) {
			err := fmt.Errorf("sandbox: the sandbox user %s cannot pass through %s (mode %o) to the workspaces under %s; choose another --workspace-root or allow others to pass (chmod o+x)", st.User, d, fi.Mode().Perm(), root)
			if st.Mode == sandbox.ModeRequired {
				return configError{err}
			}
			log.Warn("commands will not start", "error", err)
			return nil
		}
		if d == filepath.Dir(d) {
			return nil
		}
	}
}

// passable reports whether uid:gid may search the directory.
func passable(fi os.FileInfo, uid, gid int) bool {
	perm := fi.Mode().Perm()
	st, ok := fi.Sys().(*syscall.Stat_t)
	switch {
	case perm&0o001 != 0:
		return true
	case ok && int(st.Uid) == uid:
		return perm&0o100 != 0
	case ok && int(st.Gid) == gid:
		return perm&0o010 != 0
	}
	return false
}

// helperBinary is the binary every command starts through. The small
// toold-sandbox starts in milliseconds; toold itself first initialises
// every library it links (about 100 ms on a slow machine), which each Bash
// call would pay.
func helperBinary(flag string) string {
	if flag != "" {
		return flag
	}
	exe, err := os.Executable()
	if err != nil {
		return ""
	}
	if p := filepath.Join(filepath.Dir(exe), "toold-sandbox"); isExecutable(p) {
		return p
	}
	return ""
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0
}
