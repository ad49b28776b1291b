package shell

// ReadOnly reports whether this one command only reads: the policy asks it
// per part of a compound command, where Analysis.ReadOnly answers for all.
func (c *Command) ReadOnly() bool { return c.readOnly() }
