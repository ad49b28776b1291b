// Package procgroup starts, kills and reaps the processes toold runs (Bash
// commands, background shells, hook commands, MCP stdio servers, rg and the
// sandbox's helpers), each in a process group of its own, with one rule
// for a process that is already gone: killing it is no error, and Kill
// says so with os.ErrProcessDone, which os/exec takes as "nothing left to
// cancel".
//
// It also keeps the process-wide record of the children that some caller
// will wait for. Where toold is a child subreaper (the sandbox without
// cgroups), processes that a command orphaned are re-parented to toold and
// must be reaped by a sweep; the sweep asks Exclusive which children are
// someone else's, so that it never takes the wait status a caller is about
// to collect.
package procgroup
