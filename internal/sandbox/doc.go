// Package sandbox confines the commands that toold runs for Bash and for
// background shells with what the kernel allows an ordinary container: an
// unprivileged user, Landlock, resource limits and a cgroup per command.
//
// Where toold has a writable cgroup v2 subtree, it starts each command
// itself, from an OS thread of its own that sets no_new_privs and enforces
// the session's Landlock ruleset before it clones; the clone switches user
// and enters the command's new cgroup, and inherits the thread's
// confinement, while toold's other threads stay as they were. bash sets the
// resource limits on itself before the command's first word. When the call
// ends, the whole cgroup is killed.
//
// Where no cgroup can hold a command, toold becomes a child subreaper and
// starts each command through a helper (toold's hidden subcommand, or the
// small toold-sandbox binary; HelperMain), which stays as the command's
// parent, confines bash in the same way and kills every process the command
// left behind when bash ends.
//
// At start the Launcher probes what this kernel and toold's privileges allow;
// Status reports which protections are active, and Mode decides whether a
// missing one is fatal (ModeRequired), tolerated (ModeBestEffort) or whether
// commands run unconfined as before (ModeOff).
package sandbox
