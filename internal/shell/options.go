package shell

import (
	"slices"
	"strings"
)

// optSpec describes a wrapper's command-line options, in the getopt style
// where options end at the first operand (all the wrappers below parse
// with a leading "+" in their option string, or stop at the command).
type optSpec struct {
	shortFlags string   // letters without a value
	shortArgs  string   // letters with a value, attached or in the next word
	longFlags  []string // long options without a value (an =value is accepted)
	longArgs   []string // long options with a value, after = or in the next word
	// numeric accepts -N (nice -10).
	numeric bool
	// operands is how many words follow the options before the command
	// (timeout's duration, flock's file).
	operands int
}

// opt is one parsed option: "-x" or "--name" (the full name, even when
// abbreviated), and its value.
type opt struct{ name, value string }

// parse reads options and operands from args. It returns the options,
// the index of the first word after the operands, and a problem when an
// option is unknown or a word it must read is not a literal (an unquoted
// expansion may split into several words or become an option).
func (s *optSpec) parse(args []word) (opts []opt, next int, problem string) {
	i := 0
	for i < len(args) {
		a := args[i]
		if !a.lit {
			return nil, 0, "the argument " + a.s + " is not a literal"
		}
		if a.s == "--" {
			i++
			break
		}
		if len(a.s) < 2 || a.s[0] != '-' {
			break
		}
		if a.s[1] == '-' {
			name, val, hasVal := strings.Cut(a.s[2:], "=")
			full, takesArg := s.long(name)
			if full == "" {
				return nil, 0, "unknown option " + a.s
			}
			if takesArg && !hasVal {
				i++
				if i == len(args) || !args[i].lit {
					return nil, 0, "option " + a.s + " has no literal value"
				}
				val = args[i].s
			}
			opts = append(opts, opt{"--" + full, val})
			i++
			continue
		}
		if s.numeric && allDigits(a.s[1:]) {
			opts = append(opts, opt{"-N", a.s[1:]})
			i++
			continue
		}
		for j := 1; j < len(a.s); j++ {
			c := a.s[j]
			switch {
			case strings.IndexByte(s.shortFlags, c) >= 0:
				opts = append(opts, opt{"-" + string(c), ""})
				continue
			case strings.IndexByte(s.shortArgs, c) >= 0:
				val := a.s[j+1:]
				if val == "" {
					i++
					if i == len(args) || !args[i].lit {
						return nil, 0, "option -" + string(c) + " has no literal value"
					}
					val = args[i].s
				}
				opts = append(opts, opt{"-" + string(c), val})
			default:
				return nil, 0, "unknown option -" + string(c)
			}
			break
		}
		i++
	}
	for range s.operands {
		if i == len(args) {
			break
		}
		if !args[i].lit {
			return nil, 0, "the argument " + args[i].s + " is not a literal"
		}
		i++
	}
	return opts, i, ""
}

// long resolves a long option name, accepting unambiguous abbreviations
// as getopt_long does (timeout --sig=KILL is --signal=KILL).
func (s *optSpec) long(name string) (full string, takesArg bool) {
	if name == "" {
		return "", false
	}
	if slices.Contains(s.longArgs, name) {
		return name, true
	}
	if slices.Contains(s.longFlags, name) {
		return name, false
	}
	for _, l := range s.longArgs {
		if strings.HasPrefix(l, name) {
			if full != "" {
				return "", false
			}
			full, takesArg = l, true
		}
	}
	for _, l := range s.longFlags {
		if strings.HasPrefix(l, name) {
			if full != "" {
				return "", false
			}
			full = l
		}
	}
	return full, takesArg
}

// has reports whether opts holds one of the names.
func has(opts []opt, names ...string) bool {
	for _, o := range opts {
		if slices.Contains(names, o.name) {
			return true
		}
	}
	return false
}
