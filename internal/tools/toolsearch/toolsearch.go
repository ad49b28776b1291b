// Package toolsearch implements the ToolSearch tool: the model finds tools
// whose definitions were left out of its prompt (deferred tools) and gets
// their full definitions.
//
// Query forms, as Claude Code's ToolSearch takes them:
//   - "select:Read,Edit": those tools by exact name (or alias), in the order
//     given, however many; names not found are listed in the result;
//   - a tool's exact name (any case): that tool;
//   - "mcp__server" or any query starting with mcp__: the tools whose
//     names start with it, in pool order;
//   - keywords: tools scored by where each word occurs, the name weighing
//     most, then the description, then the tool's search hint; a word
//     written "+word" must occur in the name. The best max_results
//     (default 5) are returned, ties in pool order.
//
// The whole pool is searched, deferred or not, so that an orchestrator
// that leaves any tool out of the prompt can have the model find it;
// ToolSearch itself is only returned when selected by name.
package toolsearch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"github.com/toold/toold/internal/tool"
)

const (
	// Name is the tool's name.
	Name              = "ToolSearch"
	defaultMaxResults = 5
	// maxMaxResults bounds one answer: definitions are long.
	maxMaxResults = 50
)

// Catalog gives the tools a session can call, in pool order. The server
// plugs in the session's pool (built-in and MCP tools). ctx is the
// call's: it carries what the session is looked up with (the caller's
// tenant). An error fails the call: searching fewer tools than the
// session has would tell the model that its tools do not exist.
type Catalog interface {
	Tools(ctx context.Context, sessionID string) ([]tool.Definition, error)
}

// CatalogFunc adapts a function to Catalog.
type CatalogFunc func(ctx context.Context, sessionID string) ([]tool.Definition, error)

func (f CatalogFunc) Tools(ctx context.Context, sessionID string) ([]tool.Definition, error) {
	return f(ctx, sessionID)
}

// New returns the ToolSearch tool over a catalog.
func New(c Catalog) tool.Tool { return &searchTool{catalog: c} }

type searchTool struct{ catalog Catalog }

func (*searchTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "find load deferred tools definitions schema",
	}
}

type input struct {
	Query      string   `json:"query"`
	MaxResults *float64 `json:"max_results"`
}

func (t *searchTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for ToolSearch: %v", err)
	}
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return nil, tool.InvalidInputf("query is empty: give keywords, a tool name, \"select:Name1,Name2\" or an mcp__server prefix.")
	}
	n := defaultMaxResults
	if in.MaxResults != nil {
		f := *in.MaxResults
		if f != math.Trunc(f) || f < 1 {
			return nil, tool.InvalidInputf("max_results must be a whole number of at least 1, got %v.", f)
		}
		n = int(min(f, maxMaxResults))
	}
	return &call{catalog: t.catalog, query: q, max: n}, nil
}

type call struct {
	catalog Catalog
	query   string
	max     int
}

func (c *call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true, Repeatable: true}
}

func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Search tools: " + c.query, Search: true}
}

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	defs, err := c.catalog.Tools(ctx, env.SessionID)
	if err != nil {
		return nil, tool.Errorf(tool.KindUnavailable, "The session's tools could not be listed, so none were searched: %v", err)
	}
	found, missing := Search(defs, c.query, c.max)
	return render(c.query, found, missing), nil
}

// Search runs a query over defs (in pool order) and returns the matches,
// best first, and for a select: query the names it did not find.
func Search(defs []tool.Definition, query string, maxResults int) (found []tool.Definition, missing []string) {
	query = strings.TrimSpace(query)
	if maxResults <= 0 {
		maxResults = defaultMaxResults
	}
	if rest, ok := cutPrefixFold(query, "select:"); ok {
		return selectNames(defs, rest)
	}
	for _, d := range defs {
		if strings.EqualFold(d.Name, query) {
			return []tool.Definition{d}, nil
		}
	}
	if strings.HasPrefix(strings.ToLower(query), "mcp__") {
		p := strings.ToLower(query)
		for _, d := range defs {
			if strings.HasPrefix(strings.ToLower(d.Name), p) {
				found = append(found, d)
				if len(found) == maxResults {
					break
				}
			}
		}
		if len(found) > 0 {
			return found, nil
		}
	}
	return keywords(defs, query, maxResults), nil
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return s, false
}

func selectNames(defs []tool.Definition, list string) (found []tool.Definition, missing []string) {
	seen := map[string]bool{}
	for _, n := range strings.Split(list, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		i := slices.IndexFunc(defs, func(d tool.Definition) bool { return d.Name == n || slices.Contains(d.Aliases, n) })
		if i < 0 {
			// A name in the wrong case is still what the model meant.
			i = slices.IndexFunc(defs, func(d tool.Definition) bool { return strings.EqualFold(d.Name, n) })
		}
		switch {
		case i < 0:
			missing = append(missing, n)
		case !seen[defs[i].Name]:
			seen[defs[i].Name] = true
			found = append(found, defs[i])
		}
	}
	return found, missing
}

// Weights of where a query word occurs: the name outweighs the
// description, which outweighs the search hint.
const (
	scoreNamePart    = 10 // a word of the name ("edit" in NotebookEdit)
	scoreNamePrefix  = 6  // the start of a word of the name ("note")
	scoreNameContain = 4  // elsewhere in the name
	scoreDescription = 2  // a word of the description
	scoreHint        = 1  // a word of the search hint
)

func keywords(defs []tool.Definition, query string, maxResults int) []tool.Definition {
	var terms, required []string
	for _, w := range strings.Fields(strings.ToLower(query)) {
		if r, ok := strings.CutPrefix(w, "+"); ok {
			if r != "" {
				required = append(required, r)
				terms = append(terms, r)
			}
			continue
		}
		terms = append(terms, w)
	}
	type scored struct {
		i, score int
	}
	var hits []scored
	for i, d := range defs {
		if d.Name == Name {
			continue
		}
		name := strings.ToLower(d.Name)
		if slices.ContainsFunc(required, func(r string) bool { return !strings.Contains(name, r) }) {
			continue
		}
		parts := nameParts(d.Name)
		desc := words(d.Description)
		hint := words(d.SearchHint)
		score := 0
		for _, t := range terms {
			score += termScore(t, name, parts, desc, hint)
		}
		if score > 0 {
			hits = append(hits, scored{i, score})
		}
	}
	slices.SortStableFunc(hits, func(a, b scored) int { return b.score - a.score })
	out := make([]tool.Definition, 0, min(len(hits), maxResults))
	for _, h := range hits[:min(len(hits), maxResults)] {
		out = append(out, defs[h.i])
	}
	return out
}

func termScore(t, name string, parts []string, desc, hint map[string]bool) int {
	switch {
	case slices.Contains(parts, t):
		return scoreNamePart
	case slices.ContainsFunc(parts, func(p string) bool { return strings.HasPrefix(p, t) }):
		return scoreNamePrefix
	case strings.Contains(name, t):
		return scoreNameContain
	case desc[t]:
		return scoreDescription
	case hint[t]:
		return scoreHint
	}
	return 0
}

// nameParts splits a tool name into lower-case words: mcp__slack__send_message
// gives slack, send, message (mcp is dropped: every MCP tool has it);
// NotebookEdit gives notebook, edit; WebFetch gives web, fetch.
func nameParts(name string) []string {
	var parts []string
	for _, f := range strings.FieldsFunc(name, func(r rune) bool { return r == '_' || r == '-' || r == '.' || r == ' ' }) {
		var cur []rune
		rs := []rune(f)
		for i, r := range rs {
			// A capital starts a word unless it follows another capital
			// that is not followed by a lower-case letter (HTTPServer).
			if i > 0 && unicode.IsUpper(r) && (unicode.IsLower(rs[i-1]) || i+1 < len(rs) && unicode.IsLower(rs[i+1])) {
				parts = append(parts, strings.ToLower(string(cur)))
				cur = cur[:0]
			}
			cur = append(cur, r)
		}
		if len(cur) > 0 {
			parts = append(parts, strings.ToLower(string(cur)))
		}
	}
	if strings.HasPrefix(name, "mcp__") && len(parts) > 0 && parts[0] == "mcp" {
		parts = parts[1:]
	}
	return parts
}

// words is the set of lower-case words of a text.
func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '_' }) {
		m[w] = true
	}
	return m
}

// render writes the definitions as Claude Code shows tools to the model:
// one <function> element per tool holding its JSON definition.
func render(query string, found []tool.Definition, missing []string) *tool.Result {
	var b strings.Builder
	names := make([]any, 0, len(found))
	if len(found) == 0 {
		fmt.Fprintf(&b, "No tools matched %q.", query)
	} else {
		b.WriteString("<functions>\n")
		for _, d := range found {
			names = append(names, d.Name)
			b.WriteString("<function>")
			b.Write(definitionJSON(d))
			b.WriteString("</function>\n")
		}
		b.WriteString("</functions>")
	}
	if len(missing) > 0 {
		fmt.Fprintf(&b, "\n\nNo tool named: %s.", strings.Join(missing, ", "))
	}
	return tool.Text(b.String()).WithMeta("matches", names)
}

func definitionJSON(d tool.Definition) []byte {
	var schema bytes.Buffer
	if json.Compact(&schema, d.InputSchema) != nil {
		schema.Reset()
		schema.WriteString(`{"type":"object"}`)
	}
	out, _ := json.Marshal(struct {
		Description string          `json:"description"`
		Name        string          `json:"name"`
		Parameters  json.RawMessage `json:"parameters"`
	}{d.Description, d.Name, schema.Bytes()})
	return out
}
