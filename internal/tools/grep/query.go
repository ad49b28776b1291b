package grep

import (
	"encoding/json"
	"math"
	"strings"

	"github.com/bmatcuk/doublestar/v4"

	"github.com/toold/toold/internal/tool"
)

// mode is the output_mode of a call.
type mode int8

const (
	filesMode mode = iota
	contentMode
	countMode
)

func (m mode) String() string {
	switch m {
	case contentMode:
		return "content"
	case countMode:
		return "count"
	}
	return "files_with_matches"
}

// defaultHeadLimit is Claude Code's default cap on returned entries.
const defaultHeadLimit = 250

// query is one call's search, checked and normalised; both backends take it.
type query struct {
	pattern     string
	path        string // as given; empty means the cwd
	ignoreCase  bool
	multiline   bool
	globs       []string
	fileType    string
	mode        mode
	before      int // context lines, content mode only
	after       int
	lineNumbers bool
	// onlyMatching prints each match instead of its line (rg -o); content
	// mode only.
	onlyMatching bool
	headLimit    int // 0: no limit
	offset       int
	// err is a problem Claude Code reports when the call runs, after the
	// permission check, not as invalid input: a glob or type ripgrep
	// refuses, a negative head_limit or offset.
	err error
}

type input struct {
	Pattern    string `json:"pattern"`
	Path       string `json:"path"`
	Glob       string `json:"glob"`
	Type       string `json:"type"`
	OutputMode string `json:"output_mode"`
	// Numbers are integers per the schema but may be written 3.0.
	After      *float64 `json:"-A"`
	Before     *float64 `json:"-B"`
	Context    *float64 `json:"-C"`
	ContextAlt *float64 `json:"context"`
	LineNums   *bool    `json:"-n"`
	IgnoreCase bool     `json:"-i"`
	OnlyMatch  bool     `json:"-o"`
	Multiline  bool     `json:"multiline"`
	HeadLimit  *float64 `json:"head_limit"`
	Offset     *float64 `json:"offset"`
}

func parseQuery(raw json.RawMessage) (*query, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Grep: %v", err)
	}
	// An empty pattern matches every line, as in Claude Code.
	for name, v := range map[string]string{"pattern": in.Pattern, "path": in.Path, "glob": in.Glob, "type": in.Type} {
		if strings.ContainsRune(v, 0) {
			return nil, tool.InvalidInputf("%s contains a NUL byte.", name)
		}
	}
	q := &query{
		pattern:      in.Pattern,
		path:         in.Path,
		ignoreCase:   in.IgnoreCase,
		multiline:    in.Multiline,
		globs:        splitGlobs(in.Glob),
		fileType:     in.Type,
		lineNumbers:  in.LineNums == nil || *in.LineNums,
		onlyMatching: in.OnlyMatch,
		headLimit:    defaultHeadLimit,
	}
	for _, g := range q.globs {
		if nestedBraces(g) {
			q.err = rejected("error parsing glob '%s': nested alternate groups are not allowed", g)
		}
		if !doublestar.ValidatePattern(strings.TrimPrefix(g, "!")) {
			why := "invalid glob"
			switch {
			case strings.Count(g, "[") > strings.Count(g, "]"):
				why = "unclosed character class; missing ']'"
			case strings.Count(g, "{") > strings.Count(g, "}"):
				why = "unclosed alternate group; missing '}'"
			case strings.HasSuffix(g, "\\"):
				why = "dangling '\\'"
			}
			q.err = rejected("error parsing glob '%s': %s", g, why)
		}
	}
	switch in.OutputMode {
	case "", "files_with_matches":
		q.mode = filesMode
	case "content":
		q.mode = contentMode
	case "count":
		q.mode = countMode
	default:
		return nil, tool.InvalidInputf("output_mode must be content, files_with_matches or count, got %q.", in.OutputMode)
	}
	if q.fileType != "" {
		if _, ok := fileTypes()[q.fileType]; !ok {
			q.err = rejected("unrecognized file type: %s", q.fileType)
		}
	}
	var err error
	var ctx, ctxAlt int
	for _, f := range []struct {
		name string
		v    *float64
		dst  *int
	}{
		{"-A", in.After, &q.after}, {"-B", in.Before, &q.before},
		{"-C", in.Context, &ctx}, {"context", in.ContextAlt, &ctxAlt},
		{"head_limit", in.HeadLimit, &q.headLimit}, {"offset", in.Offset, &q.offset},
	} {
		if f.v == nil {
			continue
		}
		if ctxFlag := f.name != "head_limit" && f.name != "offset"; ctxFlag && *f.v >= 0 && *f.v != math.Trunc(*f.v) {
			// Claude Code hands a context fraction to ripgrep, which
			// refuses it; outside content mode it is not passed.
			if q.mode == contentMode && q.err == nil {
				flag := f.name
				if flag == "context" {
					flag = "-C"
				}
				q.err = rejected("error parsing flag %s: value is not a valid number: invalid digit found in string", flag)
			}
			continue
		}
		if *f.dst, err = count(f.name, *f.v); err != nil {
			if f.name != "head_limit" && f.name != "offset" {
				return nil, err
			}
			q.err = err
		}
	}
	if in.Context != nil && in.ContextAlt != nil && ctx != ctxAlt {
		return nil, tool.InvalidInputf("-C (%d) and context (%d) disagree: give one of them.", ctx, ctxAlt)
	}
	if in.ContextAlt != nil {
		ctx = ctxAlt
	}
	// As in rg, -A and -B override -C for their side.
	if in.After == nil {
		q.after = ctx
	}
	if in.Before == nil {
		q.before = ctx
	}
	if q.mode != contentMode {
		q.before, q.after = 0, 0
		q.onlyMatching = false
	}
	return q, nil
}

// maxCount keeps counts in int range whatever the model sends.
const maxCount = 1 << 31

func count(name string, f float64) (int, error) {
	if f != math.Trunc(f) || math.IsNaN(f) || f < 0 {
		hint := ""
		if name == "head_limit" {
			hint = " Pass 0 for unlimited."
		}
		return 0, tool.InvalidInputf("<tool_use_error>%s must be a whole number of 0 or more, got %v.%s</tool_use_error>", name, f, hint)
	}
	return int(min(f, maxCount)), nil
}

// splitGlobs splits the glob argument as Claude Code does: on whitespace,
// then on commas unless the glob holds a {a,b} alternation.
func splitGlobs(s string) []string {
	var out []string
	for _, g := range strings.Fields(s) {
		if strings.Contains(g, "{") && strings.Contains(g, "}") {
			out = append(out, g)
			continue
		}
		for p := range strings.SplitSeq(g, ",") {
			if p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

// nestedBraces reports {a,{b,c}}, which ripgrep's globs refuse.
func nestedBraces(g string) bool {
	depth := 0
	for i := 0; i < len(g); i++ {
		switch g[i] {
		case '\\':
			i++
		case '{':
			if depth++; depth > 1 {
				return true
			}
		case '}':
			depth--
		}
	}
	return false
}

// rejectedPrefix heads Claude Code's report of an argument ripgrep
// refused before searching.
const rejectedPrefix = "Search failed — ripgrep rejected the pattern, glob, or file type without searching:\nrg: "

// rejected is an error in the pattern, a glob or the type, worded as
// Claude Code reports ripgrep's refusal.
func rejected(format string, args ...any) error {
	// Claude Code's text is the whole result, without <tool_use_error>.
	return tool.Bare(tool.InvalidInputf(rejectedPrefix+format, args...))
}
