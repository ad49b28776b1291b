package shell

import "strings"

// ReadOnly reports whether this one command only reads: the policy asks it
// per part of a compound command, where Analysis.ReadOnly answers for all.
func (c *Command) ReadOnly() bool { return c.readOnly() }

// ReadOnlyButRedirects reports whether the command would be read-only but
// for output redirections to fixed files: the policy checks those as file
// writes (acceptEdits approves echo x >> notes.txt in the workspace).
func (c *Command) ReadOnlyButRedirects() bool {
	if len(c.Redirects) == 0 {
		return false
	}
	stripped := *c
	stripped.Redirects = nil
	for _, r := range c.Redirects {
		if r.Write && (r.Dynamic || r.FD < 0 || strings.HasPrefix(r.Target, "/dev/tcp/") || strings.HasPrefix(r.Target, "/dev/udp/")) {
			return false
		}
		if !r.Write {
			stripped.Redirects = append(stripped.Redirects, r)
		}
	}
	return stripped.readOnly()
}
