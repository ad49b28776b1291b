package policy

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// Options configure the engine's server-wide sources.
type Options struct {
	// PolicyFile is the operator's settings file ("" for none): the
	// policySettings source.
	PolicyFile string
	// Flag holds rules from the server's flags: the flagSettings source.
	Flag Settings
	// ReadWorkspaceFiles reads each workspace's .claude/settings.json and
	// .claude/settings.local.json (project and local sources).
	ReadWorkspaceFiles bool
	// Home is the home directory `~/` rules and the user source anchor to.
	Home string
	// StrictRules refuses a rule that does not parse (CreateSession and
	// UpdateSession fail, a bad operator file stops the server). By
	// default such a rule is skipped with a warning, as Claude Code
	// skips it.
	StrictRules bool
	// BareFileRulesCoverFamily makes a bare Read or Edit deny or ask rule
	// (also Read(*), Edit(*)) cover the tool's whole family and the files of
	// Bash commands, as Read(//**) or Edit(//**) would: a bare Read deny
	// then also refuses Grep, Glob and cat. By default such a rule is about
	// the one tool it names, as in Claude Code, where a bare Read deny
	// removes the Read tool and Grep, Glob and Bash still read.
	BareFileRulesCoverFamily bool
	// Skills says which skills ask before the Skill tool loads them
	// (their frontmatter grants or runs something). Nil: every skill
	// asks unless a rule allows it.
	Skills SkillAsker
	// AutoMode: a classifier answers the asks of sessions in auto mode
	// (toold runs with one). Without it no session may be in auto mode.
	AutoMode bool
}

// SkillAsker tells whether loading a skill needs permission, for a session
// whose primary directory is root (skill.Catalog is one).
type SkillAsker interface {
	Asks(root, name string) bool
}

// Engine decides calls. Each session's rules are compiled once per
// revision of the session and cached; a decision only evaluates.
type Engine struct {
	opts Options

	// defaultMode and bypassDisabled come from the server-wide sources.
	defaultMode    string
	bypassDisabled bool
	autoDisabled   bool
	// startWarnings name the server-wide rules that were skipped.
	startWarnings []string

	mu    sync.Mutex
	cache map[string]compiled
}

type compiled struct {
	revision int64
	// auto: compiled for auto mode (broad allow rules dropped).
	auto  bool
	rules *RuleSet
	// pathRules: some rule has a path specifier. Without one, resolving
	// symlinks for a decision (a system call per path component) is skipped.
	pathRules bool
}

var _ Decider = (*Engine)(nil)

// NewEngine checks the server-wide sources once, so that a bad operator
// file stops the server at startup rather than failing every call.
func NewEngine(opts Options) (*Engine, error) {
	if opts.Home == "" {
		opts.Home, _ = os.UserHomeDir()
	}
	e := &Engine{opts: opts, cache: make(map[string]compiled)}
	_, warnings, err := e.compile("/", SessionRules{})
	if err != nil {
		return nil, err
	}
	e.startWarnings = warnings
	srcs, err := LoadSources(LoadOptions{PolicyFile: opts.PolicyFile, Flag: opts.Flag, Workspace: "/", Home: opts.Home})
	if err != nil {
		return nil, err
	}
	// Sources come highest priority first: the first defaultMode wins.
	for _, s := range srcs {
		if e.defaultMode == "" && s.Settings.DefaultMode != "" {
			e.defaultMode = s.Settings.DefaultMode
		}
		e.bypassDisabled = e.bypassDisabled || s.Settings.DisableBypassPermissionsMode == "disable"
		e.autoDisabled = e.autoDisabled || s.Settings.DisableAutoMode == "disable"
	}
	if e.defaultMode == "manual" {
		e.defaultMode = "default"
	}
	if e.defaultMode == "auto" {
		if err := e.CheckAuto(); err != nil {
			return nil, fmt.Errorf("permissions.defaultMode \"auto\": %w", err)
		}
	}
	return e, nil
}

// CheckAuto says why no session may be in auto mode, or nil: it needs a
// classifier, and the operator's settings must not disable it
// ("disableAutoMode": "disable").
func (e *Engine) CheckAuto() error {
	switch {
	case e.autoDisabled:
		return errors.New("auto mode is disabled by the operator's settings (disableAutoMode)")
	case !e.opts.AutoMode:
		return errors.New("auto mode needs a classifier (--classifier-endpoint or --classifier-command)")
	}
	return nil
}

// DefaultMode is the mode of sessions created without one: the operator's
// permissions.defaultMode, or "" when none is set.
func (e *Engine) DefaultMode() string { return e.defaultMode }

// BypassDisabled reports whether the operator's settings say
// "disableBypassPermissionsMode": "disable": no session may use
// bypassPermissions then.
func (e *Engine) BypassDisabled() bool { return e.bypassDisabled }

// Check compiles a session's rules without caching them: CreateSession and
// UpdateSession call it so that a rule that does not parse is refused
// before anything is stored.
func (e *Engine) Check(workspace string, rules SessionRules) error {
	_, _, err := e.compile(workspace, rules)
	return err
}

// Warnings names the rules of a session (and of the sources it reads) that
// are skipped because they do not parse; nil with StrictRules, where Check
// refuses them instead.
func (e *Engine) Warnings(workspace string, rules SessionRules) []string {
	_, w, _ := e.compile(workspace, rules)
	return w
}

// StartWarnings names the server-wide rules skipped at start.
func (e *Engine) StartWarnings() []string { return e.startWarnings }

func (e *Engine) compile(workspace string, rules SessionRules) (*RuleSet, []string, error) {
	srcs, err := LoadSources(LoadOptions{
		PolicyFile:         e.opts.PolicyFile,
		Flag:               e.opts.Flag,
		Workspace:          workspace,
		ReadWorkspaceFiles: e.opts.ReadWorkspaceFiles,
		User:               rules.User,
		Home:               e.opts.Home,
		CLIArg:             rules.CLIArg,
		Session:            rules.Session.Allow,
		SessionDeny:        rules.Session.Deny,
	})
	if err != nil {
		return nil, nil, err
	}
	// Session ask rules join the session source through its settings.
	if len(rules.Session.Ask) > 0 {
		srcs = append(srcs, SourceSettings{Source: SourceSession, Root: workspace, Settings: Settings{Ask: rules.Session.Ask}, Origin: "session"})
	}
	var rs *RuleSet
	var warnings []string
	if e.opts.StrictRules {
		rs, err = Compile(srcs)
	} else {
		rs, warnings, err = CompileLenient(srcs)
	}
	if err == nil && !e.opts.BareFileRulesCoverFamily {
		rs.bareRulesNameTheirTool()
	}
	return rs, warnings, err
}

func (e *Engine) rulesFor(req Request) (*RuleSet, error) {
	c, err := e.compiledFor(req)
	return c.rules, err
}

func (e *Engine) compiledFor(req Request) (compiled, error) {
	e.mu.Lock()
	c, ok := e.cache[req.SessionID]
	e.mu.Unlock()
	if ok && c.revision == req.Revision && c.auto == (req.Mode == "auto") {
		return c, nil
	}
	rs, _, err := e.compile(req.Workspace, req.Rules)
	if err != nil {
		return compiled{}, err
	}
	if req.Mode == "auto" {
		// The revision changes with the mode, so this is recompiled
		// when the session leaves auto mode.
		rs = rs.withoutBroadAllows()
	}
	c = compiled{revision: req.Revision, auto: req.Mode == "auto", rules: rs, pathRules: hasPathRules(rs)}
	e.mu.Lock()
	e.cache[req.SessionID] = c
	e.mu.Unlock()
	return c, nil
}

func hasPathRules(rs *RuleSet) bool {
	for _, b := range []Behavior{Allow, Deny, Ask} {
		for _, r := range rs.Rules(b) {
			if r.kind == kindPath {
				return true
			}
		}
	}
	return false
}

// Forget drops a session's compiled rules (the session was deleted).
func (e *Engine) Forget(sessionID string) {
	e.mu.Lock()
	delete(e.cache, sessionID)
	e.mu.Unlock()
}

// Decide returns the decision for one call.
func (e *Engine) Decide(_ context.Context, req Request) (Decision, error) {
	c, err := e.compiledFor(req)
	if err != nil {
		return Decision{}, fmt.Errorf("permission rules: %w", err)
	}
	in := &input{req: req, rules: c.rules, home: e.opts.Home, resolve: resolveSymlinks, pathRules: c.pathRules, skills: e.opts.Skills}
	return in.decide(), nil
}

// resolveSymlinks returns p with symlinks resolved. Parts that do not exist
// yet (a file about to be created, with its directories) are kept as
// written below the deepest ancestor that exists, which is resolved.
func resolveSymlinks(p string) string {
	rest := ""
	for cur := p; ; {
		if r, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(r, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return p
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}
