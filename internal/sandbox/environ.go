package sandbox

import (
	"fmt"
	"strings"
)

// environ is env with HOME and TMPDIR in the session's temporary directory
// and, under a switched user, USER and LOGNAME naming it. HOME matters: a
// command's caches and dotfiles must land where it may write, not in
// toold's home.
func (l *Launcher) environ(s *session, env []string) []string {
	set := map[string]string{"HOME": s.home, "TMPDIR": s.tmp}
	if l.status.UserSwitch {
		set["USER"] = l.status.User
		set["LOGNAME"] = l.status.User
	}
	out := make([]string, 0, len(env)+len(set))
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		if _, ok := set[name]; !ok && !startupVar(name) {
			out = append(out, kv)
		}
	}
	for _, name := range []string{"HOME", "TMPDIR", "USER", "LOGNAME"} {
		if v, ok := set[name]; ok {
			out = append(out, name+"="+v)
		}
	}
	return out
}

// CheckVars validates the per-session variables a client gives at
// CreateSession: names as a shell accepts them, no NUL, and nothing in
// the TOOLD_ namespace, which is toold's own.
func CheckVars(vars map[string]string) error {
	for name, value := range vars {
		if !validName(name) {
			return fmt.Errorf("environment variable name %q: use letters, digits and _, not starting with a digit", name)
		}
		if strings.HasPrefix(name, "TOOLD_") {
			return fmt.Errorf("environment variable %s: the TOOLD_ prefix is reserved", name)
		}
		if startupVar(name) {
			return fmt.Errorf("environment variable %s: it makes bash run code before the sandbox's resource limits are set; put that code in the command instead", name)
		}
		if strings.IndexByte(value, 0) >= 0 {
			return fmt.Errorf("environment variable %s: the value contains a NUL byte", name)
		}
	}
	return nil
}

func validName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// startupVar reports whether bash acts on the variable before the first
// word of its command line, where the sandbox sets the resource limits:
// BASH_ENV and ENV name files it runs, SHELLOPTS and BASHOPTS turn on
// options such as xtrace, whose PS4 is expanded, command substitutions
// included, as the limits are set.
func startupVar(name string) bool {
	switch name {
	case "BASH_ENV", "ENV", "SHELLOPTS", "BASHOPTS":
		return true
	}
	return false
}
