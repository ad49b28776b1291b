package mcp

import (
	"fmt"
	"strings"
)

// expand replaces ${VAR} and ${VAR:-default} as Claude Code does in
// .mcp.json. A reference to an unset variable without a default is an
// error: starting a server with an empty token would fail later and less
// clearly. A "$" not followed by "{" is literal.
func expand(s string, env LookupEnv) (string, error) {
	if !strings.Contains(s, "${") {
		return s, nil
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String(), nil
		}
		b.WriteString(s[:i])
		end := strings.IndexByte(s[i:], '}')
		if end < 0 {
			return "", fmt.Errorf("unterminated ${ in %q", s)
		}
		ref := s[i+2 : i+end]
		name, def, hasDef := strings.Cut(ref, ":-")
		if !validEnvName(name) {
			return "", fmt.Errorf("${%s}: %q is not a variable name", ref, name)
		}
		v, ok := env(name)
		switch {
		case ok:
			b.WriteString(v)
		case hasDef:
			b.WriteString(def)
		default:
			return "", fmt.Errorf("environment variable %s is not set (write ${%s:-default} to allow that)", name, name)
		}
		s = s[i+end+1:]
	}
}

func validEnvName(name string) bool {
	if name == "" {
		return false
	}
	for i, c := range name {
		if !(c == '_' || c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}
