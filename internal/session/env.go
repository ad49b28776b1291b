package session

import "github.com/toold/toold/internal/sandbox"

// Bounds of a session's environment: it is stored with the session and
// read for every call, and Linux refuses a command whose environment and
// arguments pass a few MiB.
const (
	maxEnvVars  = 1000
	maxEnvBytes = 256 << 10
)

// checkEnv refuses variables bash could not receive or that would pass
// for toold's own (the TOOLD_ prefix), naming the variable.
func checkEnv(env map[string]string) error {
	if len(env) > maxEnvVars {
		return invalidf("env: %d variables, more than the %d allowed", len(env), maxEnvVars)
	}
	size := 0
	for k, v := range env {
		size += len(k) + len(v) + 2
	}
	if size > maxEnvBytes {
		return invalidf("env: %d bytes, more than the %d allowed", size, maxEnvBytes)
	}
	if err := sandbox.CheckVars(env); err != nil {
		return invalidf("env: %v", err)
	}
	return nil
}

// OnDelete registers fn to run when a session is deleted, after its
// running calls have stopped and before its state is dropped: what
// outlives a call (background shells, the sandbox's per-session
// directory, cached pages) is released there. Call it before serving.
func (m *Manager) OnDelete(fn func(sessionID string)) {
	m.onDelete = append(m.onDelete, fn)
}
