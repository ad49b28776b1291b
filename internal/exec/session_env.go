package exec

import (
	"slices"
	"strings"
)

// withSessionEnv is the environment of a session's processes: the
// server's allow-listed variables, then the session's own (given at
// CreateSession, sorted by name so that every call sees the same list).
// A session variable replaces an allow-listed one of the same name rather
// than following it, so that bash sees one value.
func withSessionEnv(base []string, vars map[string]string) []string {
	if len(vars) == 0 {
		return base
	}
	out := make([]string, 0, len(base)+len(vars))
	for _, kv := range base {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := vars[name]; !ok {
			out = append(out, kv)
		}
	}
	names := make([]string, 0, len(vars))
	for name := range vars {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		out = append(out, name+"="+vars[name])
	}
	return out
}
