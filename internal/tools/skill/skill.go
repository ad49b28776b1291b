// Package skill implements the Skill tool: the model loads a skill's
// instructions (a SKILL.md) by name.
//
// Decisions, following Claude Code 2.1.332 (recorded with the oracle,
// test/conformance/cases_skills.json): skills come from the operator's
// skill directories (--skill-dirs, each holding NAME/SKILL.md) and, with
// --workspace-skills, from the session's .claude/skills/NAME/SKILL.md (a
// repository's skills are its instructions, so only for trusted
// workspaces, like --read-workspace-settings); an operator's skill wins
// over a workspace's of the same name. The tool_result is Claude Code's
// "Launching skill: NAME"; the skill itself reaches the model as Claude
// Code sends it, a text block beside the tool_result ("Base directory for
// this skill: DIR", then the body with $ARGUMENTS, $N, $ARGUMENTS[N],
// ${CLAUDE_SKILL_DIR} and ${CLAUDE_SESSION_ID} put in, and "ARGUMENTS:
// ..." added when the body names none), which toold returns as the
// result's model_context. Permission (policy): Skill(name) and
// Skill(prefix:*) rules in deny and allow lists; a skill whose frontmatter
// only describes it runs without asking, any other (allowed-tools, hooks)
// asks. Not done: the skill listing Claude Code puts in its system
// prompt (ListSkills is the orchestrator's; the metadata of a result names
// the skill), "!`command`" expansion in a body (left as written), forked
// skills (context: fork) and the re-invocation notes, which need the
// transcript.
package skill

import (
	"context"
	"encoding/json"
	"errors"
	"regexp"
	"strconv"
	"strings"

	"github.com/toold/toold/internal/tool"
)

// Name is the tool's name.
const Name = "Skill"

// New returns the Skill tool over c (nil: no skills).
func New(c *Catalog) tool.Tool {
	if c == nil {
		c = NewCatalog(nil, false)
	}
	return &skillTool{c: c}
}

type skillTool struct{ c *Catalog }

func (t *skillTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        Name,
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
		SearchHint:  "skill instructions workflow slash command",
	}
}

type input struct {
	Skill string `json:"skill"`
	Args  string `json:"args"`
}

func (t *skillTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Skill: %v", err)
	}
	return &call{t: t, raw: in.Skill, name: strings.TrimPrefix(strings.TrimSpace(in.Skill), "/"), args: in.Args}, nil
}

type call struct {
	t *skillTool
	// raw is the name as the model wrote it.
	raw  string
	name string
	args string
}

// Traits: a skill changes nothing by being loaded; whether it may run is
// the permission check's (Skill rules, and whether the skill's
// frontmatter grants anything). Not concurrency-safe: the skills of one
// turn load in order, as the model asked for them.
func (c *call) Traits() tool.Traits { return tool.Traits{} }

func (c *call) Activity() tool.Activity { return tool.Activity{Summary: "Skill " + c.name, Read: true} }

func (c *call) Run(ctx context.Context, env *tool.Env) (*tool.Result, error) {
	root := ""
	if env.Files != nil {
		root = env.Files.Primary()
	}
	if c.name == "" {
		// Claude Code refuses it when it runs, after the permission
		// check, not as invalid input.
		return nil, tool.InvalidInputf("Invalid skill format: %s", c.raw)
	}
	s, err := c.t.c.Find(root, c.name)
	if errors.Is(err, ErrUnknown) {
		msg := "Unknown skill: " + c.name
		if near := c.t.closest(root, c.name); near != "" {
			msg += ". Did you mean " + near + "?"
		}
		return nil, tool.Errorf(tool.KindNotFound, "%s", msg)
	}
	if err != nil {
		return nil, tool.Failf("Skill %s could not be read: %v", c.name, err)
	}
	if s.ModelDisabled {
		return nil, tool.InvalidInputf("Skill %s cannot be used with Skill tool due to disable-model-invocation. Ask the user to run /%s themselves — it cannot be invoked via the Skill tool. Do not replicate this skill's workflow by other means — it is reserved for explicit user invocation.", c.name, c.name)
	}
	res := tool.Text("Launching skill: " + c.name)
	res.ModelContext = []string{"Base directory for this skill: " + s.Dir + "\n\n" + expand(s.Body, c.args, s.Dir, env.SessionID)}
	res.WithMeta("skill", s.Name)
	res.WithMeta("skill_dir", s.Dir)
	return res, nil
}

// closest is a known skill's name a mistyped one is near (at most two
// edits away), for the "Did you mean" hint.
func (t *skillTool) closest(root, name string) string {
	all, err := t.c.List(root)
	if err != nil {
		return ""
	}
	best, bestD := "", 3
	for _, s := range all {
		for _, n := range []string{s.Name, s.Alias} {
			if n == "" {
				continue
			}
			if d := distance(name, n, bestD); d < bestD {
				best, bestD = n, d
			}
		}
	}
	return best
}

// distance is the edit distance of a and b, or limit when it is at least
// that.
func distance(a, b string, limit int) int {
	ra, rb := []rune(a), []rune(b)
	if d := len(ra) - len(rb); d >= limit || -d >= limit {
		return limit
	}
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return min(prev[len(rb)], limit)
}

var (
	// argRef is one reference to the arguments: $ARGUMENTS[N], $ARGUMENTS
	// or $N, matched in one pass so that a reference left as written is
	// not read again.
	argRef = regexp.MustCompile(`\$ARGUMENTS(?:\[(\d+)\])?|\$(\d+)`)
)

// expand puts a call's arguments and the skill's own values into its
// body, as Claude Code does: $ARGUMENTS is the whole argument text,
// $ARGUMENTS[N] and $N the Nth word (shell-style quoting; left as written
// when there is no such word); a body that names none of them gets
// "ARGUMENTS: ..." after it when there are arguments.
func expand(body, args, dir, sessionID string) string {
	body = strings.ReplaceAll(body, "${CLAUDE_SKILL_DIR}", dir)
	body = strings.ReplaceAll(body, "${CLAUDE_SESSION_ID}", sessionID)
	named := argRef.MatchString(body)
	words := splitArgs(args)
	body = argRef.ReplaceAllStringFunc(body, func(m string) string {
		if m == "$ARGUMENTS" {
			return args
		}
		sub := argRef.FindStringSubmatch(m)
		n, err := strconv.Atoi(sub[1] + sub[2])
		if err != nil || n >= len(words) {
			return m
		}
		return words[n]
	})
	if !named && args != "" {
		body += "\n\nARGUMENTS: " + args
	}
	return body
}

// splitArgs splits argument text into words as a shell would: blanks
// separate, single and double quotes group, a backslash escapes the next
// character outside single quotes.
func splitArgs(s string) []string {
	var out []string
	var cur strings.Builder
	in, quote, esc := false, rune(0), false
	for _, r := range s {
		switch {
		case esc:
			cur.WriteRune(r)
			esc = false
		case r == '\\' && quote != '\'':
			esc, in = true, true
		case quote != 0:
			if r == quote {
				quote = 0
			} else {
				cur.WriteRune(r)
			}
		case r == '"' || r == '\'':
			quote, in = r, true
		case r == ' ' || r == '\t' || r == '\n':
			if in {
				out = append(out, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
	}
	if in {
		out = append(out, cur.String())
	}
	return out
}
