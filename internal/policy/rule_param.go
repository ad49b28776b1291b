package policy

import (
	"encoding/json"
	"strconv"
	"strings"
)

// paramPattern is a compiled parameter rule Tool(param:value)
// (https://code.claude.com/docs/en/permissions "Permission rule syntax",
// v2.1.178): the named top-level field of the input, a scalar, compared by
// its JSON text (a string by its value) before any normalisation, with '*'
// matching any run of characters; "\*" is a literal star.
type paramPattern struct {
	key   string
	parts []string // value split on unescaped '*'
	// absent, when set, is matched for an omitted field: the value the
	// tool takes then (Agent's subagent_type, see rule_agent.go).
	absent string
}

func compileParam(key, value string) *paramPattern {
	return &paramPattern{key: key, parts: splitStars(value)}
}

// match reports whether input has the field with a matching scalar value.
// An omitted field, a JSON null, an object and an array never match:
// "Agent(model:*)" does not match a call that leaves model unset.
func (p *paramPattern) match(input map[string]any) bool {
	v, ok := input[p.key]
	if !ok && p.absent != "" {
		v, ok = p.absent, true
	}
	if !ok {
		return false
	}
	var s string
	switch x := v.(type) {
	case string:
		s = x
	case bool:
		s = strconv.FormatBool(x)
	case json.Number:
		s = x.String()
	case float64:
		b, err := json.Marshal(x)
		if err != nil {
			return false
		}
		s = string(b)
	case int:
		s = strconv.Itoa(x)
	case int64:
		s = strconv.FormatInt(x, 10)
	default:
		return false
	}
	return wildMatch(p.parts, s)
}

// splitStars splits a pattern on '*' for wildMatch, turning "\*" into a
// literal star and "\\" into a backslash; other backslashes stay.
func splitStars(pat string) []string {
	if !strings.Contains(pat, `\`) {
		return strings.Split(pat, "*")
	}
	var parts []string
	var cur strings.Builder
	for i := 0; i < len(pat); i++ {
		c := pat[i]
		switch {
		case c == '\\' && i+1 < len(pat) && (pat[i+1] == '*' || pat[i+1] == '\\'):
			cur.WriteByte(pat[i+1])
			i++
		case c == '*':
			parts = append(parts, cur.String())
			cur.Reset()
		default:
			cur.WriteByte(c)
		}
	}
	return append(parts, cur.String())
}
