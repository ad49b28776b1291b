// Package sandbox confines the commands that toold runs for Bash and for
// background shells with what the kernel allows an ordinary container: an
// unprivileged user, Landlock, resource limits and a cgroup per command.
//
// Every command goes through a helper: toold re-executes its own binary with
// a hidden subcommand (HelperMain), which switches user, sets no_new_privs,
// applies Landlock and rlimits and then execs bash. The parent side, the
// Launcher, builds that command, places it into its own cgroup at clone time
// and kills the whole cgroup when the call ends. Where no delegated cgroup v2
// subtree is writable, toold becomes a child subreaper instead and kills every
// process that a finished command left behind.
//
// At start the Launcher probes what this kernel and toold's privileges allow;
// Status reports which protections are active, and Mode decides whether a
// missing one is fatal (ModeRequired), tolerated (ModeBestEffort) or whether
// commands run unconfined as before (ModeOff).
package sandbox
