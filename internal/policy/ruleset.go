package policy

import (
	"errors"
	"fmt"
	"sort"

	"github.com/toold/toold/internal/shell"
)

// RuleSet is every rule of every source, compiled once and matched per
// call. It is immutable and safe for concurrent use.
type RuleSet struct {
	// byBehavior[b] lists the rules of behavior b in source priority
	// order, then list order.
	byBehavior [3][]*Rule
}

// Query describes one call, or one simple command of a Bash call, for
// matching. The engine fills the fields the tool needs.
type Query struct {
	// Tool is the canonical tool name.
	Tool string
	// Input is the tool input, for parameter rules Tool(param:value).
	Input map[string]any
	// Command is ONE simple command of a Bash call: the engine matches
	// every command of the analysis (and of its hidden substitutions) on
	// its own, as each must be covered independently
	// (https://code.claude.com/docs/en/permissions "Compound commands").
	// Bash specifier rules never match a query without one.
	Command *shell.Command
	// Script is the whole command of the Bash call as given. A command run
	// through an exec wrapper matches only an exact allow rule equal to it.
	Script string
	// Path is the file the call touches, absolute and clean, for Read,
	// Edit, Write, Glob, Grep and NotebookEdit (the directory searched for
	// Glob and Grep). The engine matches the path as given and, separately,
	// the symlink-resolved one: an allow needs both, a deny either.
	Path string
	// Cwd anchors relative path patterns; Home anchors "~/" patterns.
	// Both absolute. Patterns needing one that is missing fail closed:
	// deny and ask rules match, allow rules do not.
	Cwd  string
	Home string
	// Domain is the hostname of a WebFetch URL.
	Domain string
	// PathsOnly asks only the rules that speak about paths: path rules and
	// family-wide bare rules. It is set when a call of one tool is checked
	// as a read or write of another (a Bash command's files as Read or
	// Edit): a rule that merely names the Read or Edit tool is about that
	// tool, and Claude Code does not apply it to a command's files.
	PathsOnly bool
}

// Compile parses every rule of every source, all or nothing: the first bad
// rule (or invalid non-rule setting) fails the whole compile with an error
// naming the rule, its list and its origin. Sources may come in any order;
// rules are kept in source priority order (see Source).
func Compile(sources []SourceSettings) (*RuleSet, error) {
	rs, _, err := compileSources(sources, true)
	return rs, err
}

// CompileLenient is Compile as Claude Code loads rules: a rule that does
// not parse is skipped, and a warning naming it, its list, its origin and
// the reason is returned instead of an error. Settings other than rules
// that are invalid still fail.
func CompileLenient(sources []SourceSettings) (*RuleSet, []string, error) {
	return compileSources(sources, false)
}

func compileSources(sources []SourceSettings, strict bool) (*RuleSet, []string, error) {
	var warnings []string
	ordered := make([]SourceSettings, len(sources))
	copy(ordered, sources)
	sort.SliceStable(ordered, func(i, j int) bool { return ordered[i].Source < ordered[j].Source })
	rs := &RuleSet{}
	for _, src := range ordered {
		if src.Source < SourcePolicy || src.Source > SourceSession {
			return nil, nil, fmt.Errorf("unknown settings source %d (%s)", int(src.Source), src.Origin)
		}
		if err := src.Settings.Validate(); err != nil {
			return nil, nil, fmt.Errorf("%s (%s): %w", src.Source, src.Origin, err)
		}
		for _, list := range []struct {
			b     Behavior
			rules []string
		}{{Deny, src.Settings.Deny}, {Ask, src.Settings.Ask}, {Allow, src.Settings.Allow}} {
			for i, text := range list.rules {
				r, err := ParseRule(text, list.b, src.Source, src.Root)
				if err != nil {
					var re *RuleError
					if errors.As(err, &re) {
						re.Origin, re.Index = src.Origin, i
					}
					if strict {
						return nil, nil, err
					}
					warnings = append(warnings, err.Error()+"; the rule is ignored")
					continue
				}
				rs.byBehavior[list.b] = append(rs.byBehavior[list.b], r)
			}
		}
	}
	return rs, warnings, nil
}

// Match returns the first rule of behavior b that matches q, in source
// priority order, or nil. The caller evaluates deny, then ask, then allow,
// and the first behavior with a match decides regardless of how specific
// each rule is (https://code.claude.com/docs/en/permissions#manage-permissions);
// since every source's rules are here, a deny anywhere beats an allow
// anywhere.
func (rs *RuleSet) Match(b Behavior, q Query) *Rule {
	if rs == nil || b < Allow || b > Ask {
		return nil
	}
	ct := cmdText{c: q.Command}
	for _, r := range rs.byBehavior[b] {
		if r.matchesWith(&q, &ct) {
			return r
		}
	}
	return nil
}

// bareRulesNameTheirTool narrows each bare Read or Edit deny and ask rule
// to the tool it names (see Options.BareFileRulesCoverFamily). Allow rules
// keep their family: a bare Read allow approving Grep and Glob too grants
// nothing a read inside the workspace would not already have.
func (rs *RuleSet) bareRulesNameTheirTool() {
	if rs == nil {
		return
	}
	for _, b := range []Behavior{Deny, Ask} {
		for _, r := range rs.byBehavior[b] {
			if r.kind == kindTool {
				r.family = famNone
			}
		}
	}
}

// ToolDenied returns the first deny rule that removes tool entirely: a
// bare rule or Tool(*), an MCP server rule, a matching tool-name glob, or a
// bare Read or Edit rule for a tool of the family it covers (see
// coversFamily). nil when the tool stays available.
func (rs *RuleSet) ToolDenied(tool string) *Rule {
	if rs == nil {
		return nil
	}
	for _, r := range rs.byBehavior[Deny] {
		if r.kind == kindTool && r.appliesTo(tool) {
			return r
		}
	}
	return nil
}

// Rules returns the rules of behavior b in priority order. The slice is
// shared: do not modify it.
func (rs *RuleSet) Rules(b Behavior) []*Rule {
	if rs == nil || b < Allow || b > Ask {
		return nil
	}
	return rs.byBehavior[b]
}
