package shell

import (
	"slices"
	"strings"
)

// SafeEnvNames are the variables whose leading assignment an allow rule
// matches past, and that a read-only command may carry (LANG=C cat f). The docs leave the list open ("known-safe"); these only
// select locale, colour, terminal size or a build flavour, and none of them
// makes a program load code or read a path it would not otherwise read
// (contrast LD_*, PATH, GIT_*, BASH_ENV, *PAGER, EDITOR, NODE_OPTIONS,
// PYTHON*, PERL5OPT, LESSOPEN: security.md §1 #10).
var SafeEnvNames = []string{"LANG", "LANGUAGE", "LC_ALL", "TZ", "NO_COLOR", "FORCE_COLOR", "CLICOLOR", "CLICOLOR_FORCE",
	"TERM", "COLUMNS", "LINES", "CI", "NODE_ENV", "RUST_BACKTRACE"}

// SafeEnvName reports whether name is one of SafeEnvNames or LC_*.
func SafeEnvName(name string) bool {
	if slices.Contains(SafeEnvNames, name) {
		return true
	}
	if rest, ok := strings.CutPrefix(name, "LC_"); ok && rest != "" {
		for i := 0; i < len(rest); i++ {
			if rest[i] < 'A' || rest[i] > 'Z' {
				return false
			}
		}
		return true
	}
	return false
}

// SafeAssigns reports whether every leading assignment sets a known-safe
// variable to a plain value: letters, digits and "_.,:+@-" (and '/' inside
// a TZ zone name). Values with '/' elsewhere, '$', quotes or spaces are
// refused: glibc takes a LANG or LC_* value with a slash as a path.
func SafeAssigns(assigns []string) bool {
	for _, a := range assigns {
		name, value, ok := strings.Cut(a, "=")
		if !ok || !SafeEnvName(name) {
			return false
		}
		for i := 0; i < len(value); i++ {
			c := value[i]
			switch {
			case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("_.,:+@-", c) >= 0:
			case c == '/' && name == "TZ" && i > 0 && i+1 < len(value) && value[i-1] != '/' && !strings.Contains(value, ".."):
			default:
				return false
			}
		}
	}
	return true
}
