package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/toold/toold/internal/strictjson"
)

// maxSettingsSize bounds a settings file. Real ones are a few kilobytes.
const maxSettingsSize = 1 << 20

// Config is the hooks of one or more settings files, shaped like the
// "hooks" block of Claude Code's settings.json:
//
//	{"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [
//	    {"type": "command", "command": "$CLAUDE_PROJECT_DIR/.claude/hooks/check.sh", "timeout": 30}]}]}}
//
// A Config is immutable once parsed and safe for concurrent use.
type Config struct {
	// Groups are the matcher groups of each event toold fires, in file
	// order, across files in the order they were merged.
	Groups map[Event][]*Group
	// Inert lists the documented events the settings configure that toold
	// never fires (see InertReason), so that the operator can be told.
	Inert []Event
	// DisableAllHooks is the settings' "disableAllHooks". In the operator's
	// settings it turns every hook off; in a workspace's, only that
	// workspace's hooks.
	DisableAllHooks bool
	// AllowManagedHooksOnly is the settings' "allowManagedHooksOnly": in the
	// operator's settings it keeps workspace hooks from running even where
	// reading workspace settings is on.
	AllowManagedHooksOnly bool
	// Warnings name, one line each with the file and path, the hooks of the
	// settings that toold cannot run (an http, prompt, agent or mcp_tool
	// hook, a powershell command), which are left out, and documented
	// handler keys it does not apply. They are not errors: a team's
	// settings file carries them for Claude Code, and toold says so at
	// start.
	Warnings []string
}

// Group is one matcher and its handlers.
type Group struct {
	// Matcher is the matcher as written ("" when omitted).
	Matcher string
	Hooks   []*Handler
	// Path locates the group in its file, e.g. hooks.PreToolUse[0].
	Path   string
	Origin string

	match matcher
}

// Handler is one hook.
type Handler struct {
	// Type is "command" or "grpc".
	Type string
	// Command is the shell command (type command), run with bash -c; with
	// Args it is the program, run without a shell.
	Command string
	Args    []string
	// Endpoint is the address of a toold.v1.HookService (type grpc).
	Endpoint string
	// Insecure dials Endpoint without TLS; otherwise TLS with the system's
	// roots, or with CAFile's when set. ServerName overrides the name the
	// certificate must carry.
	Insecure   bool
	CAFile     string
	ServerName string
	// Headers are sent as gRPC metadata with every call.
	Headers map[string]string
	// If is a permission rule ("Bash(git *)"): on tool events the hook runs
	// only for calls the rule matches.
	If string
	// Timeout is the handler's own limit; 0 means the runner's default.
	Timeout time.Duration
	// StatusMessage is what a console shows while the hook runs.
	StatusMessage string
	// Async runs the hook in the background: it cannot decide anything.
	Async bool
	// Once runs the hook only the first time it matches in a session.
	Once bool
	// Path locates the handler in its file, e.g.
	// hooks.PreToolUse[0].hooks[1]; Origin names the file.
	Path   string
	Origin string
}

// Name is how reports and logs name the handler: its command or endpoint.
func (h *Handler) Name() string {
	if h.Type == "grpc" {
		return "grpc://" + h.Endpoint
	}
	if len(h.Args) > 0 {
		return h.Command + " " + strings.Join(h.Args, " ")
	}
	return h.Command
}

// key identifies identical handlers: one defined in several settings files
// runs once per event.
func (h *Handler) key() string {
	return strings.Join(append([]string{h.Type, h.Command, h.Endpoint, h.If, fmt.Sprint(h.Insecure), h.CAFile, h.ServerName}, h.Args...), "\x00")
}

// ConfigError is a settings file that cannot be used. Path locates the bad
// value, e.g. hooks.PreToolUse[0].hooks[1].timeout.
type ConfigError struct {
	Origin string
	Path   string
	Reason string
}

func (e *ConfigError) Error() string {
	var b strings.Builder
	b.WriteString("hooks settings")
	if e.Origin != "" {
		b.WriteString(" " + e.Origin)
	}
	if e.Path != "" {
		b.WriteString(": " + e.Path)
	}
	b.WriteString(": " + e.Reason)
	return b.String()
}

// ParseSettingsFile reads a settings.json file and returns its hooks. The
// file must be a regular file of at most 1 MiB; it is opened without
// blocking so that a FIFO planted in its place cannot stall the caller.
func ParseSettingsFile(path string) (*Config, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if err != nil {
		return nil, &ConfigError{Origin: path, Reason: err.Error()}
	}
	defer f.Close()
	return readSettings(f, path)
}

func readSettings(f *os.File, origin string) (*Config, error) {
	st, err := f.Stat()
	if err != nil {
		return nil, &ConfigError{Origin: origin, Reason: err.Error()}
	}
	if !st.Mode().IsRegular() {
		return nil, &ConfigError{Origin: origin, Reason: "not a regular file"}
	}
	data, err := io.ReadAll(io.LimitReader(f, maxSettingsSize+1))
	if err != nil {
		return nil, &ConfigError{Origin: origin, Reason: err.Error()}
	}
	if len(data) > maxSettingsSize {
		return nil, &ConfigError{Origin: origin, Reason: fmt.Sprintf("larger than %d bytes", maxSettingsSize)}
	}
	return ParseSettings(data, origin)
}

// ParseSettings parses settings.json content and returns its hooks; origin
// names the content in errors. Keys other than "hooks", "disableAllHooks"
// and "allowManagedHooksOnly" belong to other packages and are ignored.
// Inside "hooks" everything must be understood: an unknown event, key or
// handler type, a matcher that does not compile, an `if` rule that does not
// parse is an error naming where it is, because the operator would
// otherwise believe a gate in force that is not. A hook of a type Claude
// Code runs and toold cannot (http, prompt, agent, mcp_tool, a powershell
// command) is not an error: it is left out and listed in Config.Warnings,
// for the operator to read at start.
func ParseSettings(data []byte, origin string) (*Config, error) {
	fail := func(path, format string, args ...any) (*Config, error) {
		return nil, &ConfigError{Origin: origin, Path: path, Reason: fmt.Sprintf(format, args...)}
	}
	if !utf8.Valid(data) {
		return fail("", "not valid UTF-8")
	}
	if err := strictjson.Check(data); err != nil {
		return fail("", "%s", err)
	}
	top, ok := object(data)
	if !ok {
		return fail("", "the settings must be a JSON object")
	}
	cfg := &Config{Groups: map[Event][]*Group{}}
	var hooks json.RawMessage
	for _, k := range sortedKeys(top) {
		v := top[k]
		var err error
		switch {
		case k == "hooks":
			hooks = v
		case k == "disableAllHooks":
			cfg.DisableAllHooks, err = boolValue(v)
		case k == "allowManagedHooksOnly":
			cfg.AllowManagedHooksOnly, err = boolValue(v)
		case strings.EqualFold(k, "hooks"):
			return fail(k, "did you mean \"hooks\"? (keys are case-sensitive)")
		}
		if err != nil {
			return fail(k, "%s", err)
		}
	}
	if hooks == nil {
		return cfg, nil
	}
	events, ok := object(hooks)
	if !ok {
		return fail("hooks", "must be an object of event names")
	}
	for _, name := range sortedKeys(events) {
		ev := Event(name)
		path := "hooks." + name
		if !ev.fired() && InertReason(ev) == "" {
			return fail(path, "unknown hook event (toold fires %s)", eventList())
		}
		groups, err := parseGroups(ev, events[name], path, origin, &cfg.Warnings)
		if err != nil {
			return nil, err
		}
		if ev.fired() {
			cfg.Groups[ev] = groups
		} else if len(groups) > 0 {
			cfg.Inert = append(cfg.Inert, ev)
		}
	}
	return cfg, nil
}

func parseGroups(ev Event, raw json.RawMessage, path, origin string, warnings *[]string) ([]*Group, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || items == nil {
		return nil, &ConfigError{Origin: origin, Path: path, Reason: "must be an array of matcher groups"}
	}
	groups := make([]*Group, 0, len(items))
	for i, item := range items {
		g, err := parseGroup(ev, item, fmt.Sprintf("%s[%d]", path, i), origin, warnings)
		if err != nil {
			return nil, err
		}
		if g != nil {
			groups = append(groups, g)
		}
	}
	return groups, nil
}

// parseGroup returns nil for a group whose every hook was skipped.
func parseGroup(ev Event, raw json.RawMessage, path, origin string, warnings *[]string) (*Group, error) {
	fail := func(sub, format string, args ...any) (*Group, error) {
		return nil, &ConfigError{Origin: origin, Path: path + sub, Reason: fmt.Sprintf(format, args...)}
	}
	fields, ok := object(raw)
	if !ok {
		return fail("", "must be an object with \"matcher\" and \"hooks\"")
	}
	g := &Group{Path: path, Origin: origin}
	var handlers json.RawMessage
	for _, k := range sortedKeys(fields) {
		switch k {
		case "matcher":
			s, err := strictjson.String(fields[k])
			if err != nil {
				return fail(".matcher", "%s", err)
			}
			g.Matcher = s
		case "hooks":
			handlers = fields[k]
		default:
			return fail("."+k, "unknown key (known: matcher, hooks)")
		}
	}
	if ev.matcherless() {
		// As in Claude Code, a matcher on an event without matcher
		// support is ignored: the group runs for every event.
		g.match = matcher{all: true}
	} else {
		m, err := compileMatcher(g.Matcher)
		if err != nil {
			return fail(".matcher", "%s", err)
		}
		g.match = m
	}
	var items []json.RawMessage
	if handlers == nil {
		return fail(".hooks", "missing: a matcher group needs a \"hooks\" array")
	}
	if err := json.Unmarshal(handlers, &items); err != nil || items == nil {
		return fail(".hooks", "must be an array of hooks")
	}
	left := 0
	for i, item := range items {
		h, why, err := parseHandler(ev, item, fmt.Sprintf("%s.hooks[%d]", path, i), origin)
		if err != nil {
			return nil, err
		}
		*warnings = append(*warnings, why...)
		if h == nil {
			left++
			continue
		}
		g.Hooks = append(g.Hooks, h)
	}
	if left > 0 && len(g.Hooks) == 0 {
		return nil, nil
	}
	return g, nil
}

// handlerKeys are the keys each handler type accepts. Keys Claude Code
// documents for handler types toold does not run are not listed: those
// hooks are skipped as a whole.
var handlerKeys = map[string][]string{
	"command": {"type", "command", "args", "shell", "timeout", "if", "statusMessage", "async", "asyncRewake", "once"},
	"grpc":    {"type", "endpoint", "insecure", "caFile", "serverName", "headers", "timeout", "if", "statusMessage", "async", "once"},
}

// unrunnableTypes are the handler types Claude Code runs and toold cannot:
// they need a model (prompt, agent), an MCP client (mcp_tool) or are an
// HTTP call toold does not make.
var unrunnableTypes = []string{"http", "prompt", "agent", "mcp_tool"}

// parseHandler returns the handler, or nil and why when toold skips it
// (why also carries documented keys it accepts and does not apply).
func parseHandler(ev Event, raw json.RawMessage, path, origin string) (*Handler, []string, error) {
	fail := func(sub, format string, args ...any) (*Handler, []string, error) {
		return nil, nil, &ConfigError{Origin: origin, Path: path + sub, Reason: fmt.Sprintf(format, args...)}
	}
	skip := func(format string, args ...any) (*Handler, []string, error) {
		return nil, []string{fmt.Sprintf("%s: %s: skipped, not run by toold: %s", origin, path, fmt.Sprintf(format, args...))}, nil
	}
	fields, ok := object(raw)
	if !ok {
		return fail("", "must be an object with \"type\"")
	}
	h := &Handler{Path: path, Origin: origin}
	if fields["type"] == nil {
		return fail(".type", "missing (toold runs \"command\" and \"grpc\" hooks)")
	}
	t, err := strictjson.String(fields["type"])
	if err != nil {
		return fail(".type", "%s", err)
	}
	switch {
	case t == "command", t == "grpc":
		h.Type = t
	case slices.Contains(unrunnableTypes, t):
		return skip("%q hooks need what toold does not have (it runs \"command\" and \"grpc\" hooks); this hook is not in force", t)
	default:
		return fail(".type", "unknown hook type %q (toold runs \"command\" and \"grpc\" hooks)", t)
	}
	var unused []string
	for _, k := range sortedKeys(fields) {
		if !slices.Contains(handlerKeys[t], k) {
			return fail("."+k, "unknown key for a %q hook (known: %s)", t, strings.Join(handlerKeys[t], ", "))
		}
		if k == "shell" {
			if sh, err := strictjson.String(fields[k]); err == nil && sh == "powershell" {
				return skip("a powershell command (toold runs command hooks with bash); this hook is not in force")
			}
		}
		if k == "asyncRewake" {
			// Waking the model is the orchestrator's business; toold runs
			// the hook as written otherwise.
			if _, err := boolValue(fields[k]); err != nil {
				return fail("."+k, "%s", err)
			}
			unused = append(unused, fmt.Sprintf("%s: %s.asyncRewake: not applied by toold (it has no model to wake)", origin, path))
			continue
		}
		if err := h.set(k, fields[k]); err != nil {
			return fail("."+k, "%s", err)
		}
	}
	switch {
	case t == "command" && strings.TrimSpace(h.Command) == "":
		return fail(".command", "missing or empty")
	case t == "grpc" && strings.TrimSpace(h.Endpoint) == "":
		return fail(".endpoint", "missing or empty")
	case h.CAFile != "" && h.Insecure:
		return fail(".caFile", "a CA file makes no sense with \"insecure\": true")
	case t == "grpc" && ev.worktreeEvent():
		// RunHook carries no worktree name or path, and its answer no
		// worktree path.
		return fail(".type", "%s hooks must be \"command\" hooks: a \"grpc\" hook is given no worktree name or path and cannot answer one", ev)
	case h.Async && ev == WorktreeCreate:
		return fail(".async", "a WorktreeCreate hook cannot be async: toold waits for the path it prints")
	}
	if h.If != "" {
		if !ev.toolEvent() {
			return fail(".if", "\"if\" applies to tool events only; on %s the hook would never run", ev)
		}
		if err := checkIf(h.If); err != nil {
			return fail(".if", "%s", err)
		}
	}
	return h, unused, nil
}

func (h *Handler) set(k string, v json.RawMessage) error {
	var err error
	switch k {
	case "type":
	case "command":
		h.Command, err = strictjson.String(v)
	case "args":
		h.Args, err = strictjson.Strings(v)
	case "shell":
		var s string
		if s, err = strictjson.String(v); err == nil && s != "bash" {
			err = fmt.Errorf("%q is not supported (toold runs command hooks with bash)", s)
		}
	case "timeout":
		h.Timeout, err = seconds(v)
	case "if":
		h.If, err = strictjson.String(v)
	case "statusMessage":
		h.StatusMessage, err = strictjson.String(v)
	case "async":
		h.Async, err = boolValue(v)
	case "once":
		h.Once, err = boolValue(v)
	case "endpoint":
		h.Endpoint, err = strictjson.String(v)
	case "insecure":
		h.Insecure, err = boolValue(v)
	case "caFile":
		h.CAFile, err = strictjson.String(v)
	case "serverName":
		h.ServerName, err = strictjson.String(v)
	case "headers":
		h.Headers, err = stringMap(v)
	}
	return err
}

// seconds reads a timeout: a positive number of seconds, fractions allowed.
func seconds(v json.RawMessage) (time.Duration, error) {
	var f float64
	if err := json.Unmarshal(v, &f); err != nil {
		return 0, errors.New("must be a number of seconds")
	}
	if f <= 0 || f > 86400 {
		return 0, fmt.Errorf("%v seconds: must be more than 0 and at most 86400", f)
	}
	return time.Duration(f * float64(time.Second)), nil
}

func object(raw json.RawMessage) (map[string]json.RawMessage, bool) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil || m == nil {
		return nil, false
	}
	return m, true
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func boolValue(raw json.RawMessage) (bool, error) {
	var b bool
	if err := json.Unmarshal(raw, &b); err != nil || (string(raw) != "true" && string(raw) != "false") {
		return false, errors.New("must be true or false")
	}
	return b, nil
}

func stringMap(raw json.RawMessage) (map[string]string, error) {
	m, ok := object(raw)
	if !ok {
		return nil, errors.New("must be an object of strings")
	}
	out := make(map[string]string, len(m))
	for k, v := range m {
		s, err := strictjson.String(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		out[strings.ToLower(k)] = s
	}
	return out, nil
}

func eventList() string {
	names := make([]string, len(Events))
	for i, e := range Events {
		names[i] = string(e)
	}
	return strings.Join(names, ", ")
}

// Merge returns the hooks of base followed by those of extra: Claude Code
// merges hook entries across settings levels. extra's groups are skipped
// when extra disables its own hooks or base allows managed hooks only.
// base's settings flags carry over; Merge never changes its arguments.
func Merge(base, extra *Config) *Config {
	out := &Config{Groups: map[Event][]*Group{}}
	if base != nil {
		out.DisableAllHooks, out.AllowManagedHooksOnly = base.DisableAllHooks, base.AllowManagedHooksOnly
		for ev, gs := range base.Groups {
			out.Groups[ev] = append(out.Groups[ev], gs...)
		}
		out.Inert = append(out.Inert, base.Inert...)
		out.Warnings = append(out.Warnings, base.Warnings...)
	}
	if extra == nil || extra.DisableAllHooks || out.AllowManagedHooksOnly {
		return out
	}
	for ev, gs := range extra.Groups {
		out.Groups[ev] = append(out.Groups[ev], gs...)
	}
	out.Inert = append(out.Inert, extra.Inert...)
	out.Warnings = append(out.Warnings, extra.Warnings...)
	return out
}
