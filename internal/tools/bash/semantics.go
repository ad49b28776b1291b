package bash

import "strings"

// benignExit reports whether Claude Code reads exit code code of command
// as a result rather than a failure. It looks only at the first word of
// the command's last part (after the last unquoted ;, &, |, && or || or
// newline), as Claude Code does: for grep, egrep, fgrep and rg an exit of 1
// means no match, for find that some paths were not found or readable,
// for diff and git diff that the files differ, for test and [ that the
// condition is false. A code of 2 or more is a failure for them too.
func benignExit(command string, code int) bool {
	if code != 1 {
		return false
	}
	words := strings.Fields(lastPart(command))
	if len(words) == 0 {
		return false
	}
	switch words[0] {
	case "grep", "egrep", "fgrep", "rg", "find", "diff", "test", "[":
		return true
	case "git":
		return len(words) > 1 && words[1] == "diff"
	}
	return false
}

// lastPart is the text after the last control operator that is not
// inside quotes or escaped.
func lastPart(s string) string {
	start := 0
	var quote byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case quote == '\'':
			if c == '\'' {
				quote = 0
			}
		case c == '\\':
			i++
		case quote == '"':
			if c == '"' {
				quote = 0
			}
		case c == '\'' || c == '"':
			quote = c
		case (c == '&' || c == '|') && i > 0 && (s[i-1] == '>' || s[i-1] == '<'):
			// 2>&1, >&2, >|: a redirection, not an operator
		case c == '&' && i+1 < len(s) && s[i+1] == '>':
			// &> and &>>
		case c == ';' || c == '&' || c == '|' || c == '\n':
			if strings.TrimSpace(s[i+1:]) != "" {
				start = i + 1
			}
		}
	}
	return s[start:]
}
