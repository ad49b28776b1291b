package policy

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
)

// Source is where a rule came from. The constants are in priority order,
// highest first; RuleSet.Match reports the first matching rule in this
// order. Priority only decides which rule is reported: lists merge across
// sources, and a deny in any source beats an allow in any other
// (https://code.claude.com/docs/en/permissions "Settings precedence").
type Source int

const (
	// SourcePolicy: the operator's --settings file (Claude Code's managed
	// settings).
	SourcePolicy Source = iota
	// SourceFlag: rules given in the server's flags.
	SourceFlag
	// SourceProject: the workspace's .claude/settings.json.
	SourceProject
	// SourceUser: per-caller settings given at CreateSession (Claude
	// Code's ~/.claude/settings.json).
	SourceUser
	// SourceLocal: the workspace's .claude/settings.local.json.
	SourceLocal
	// SourceCLIArg: the permissions given with CreateSession (Claude
	// Code's command-line arguments).
	SourceCLIArg
	// SourceSession: rules added during the session by answers to asks.
	SourceSession
)

var sourceNames = [...]string{"policySettings", "flagSettings", "projectSettings", "userSettings", "localSettings", "cliArg", "session"}

// String returns Claude Code's name for the source.
func (s Source) String() string {
	if s >= 0 && int(s) < len(sourceNames) {
		return sourceNames[s]
	}
	return fmt.Sprintf("Source(%d)", int(s))
}

// ParseSource is the inverse of Source.String.
func ParseSource(name string) (Source, error) {
	for i, n := range sourceNames {
		if n == name {
			return Source(i), nil
		}
	}
	return 0, fmt.Errorf("unknown settings source %q", name)
}

// SourceSettings is one source's settings with what Compile needs to know
// about it.
type SourceSettings struct {
	Source Source
	// Root anchors the source's "/path" patterns; see Rule.Root.
	Root     string
	Settings Settings
	// Origin names the source in messages: a file path, "CreateSession",
	// "server flags", ...
	Origin string
}

// LoadOptions says where LoadSources finds each source.
type LoadOptions struct {
	// PolicyFile is the operator's settings file, "" for none. Unlike the
	// workspace files it must exist: the operator named it, and managed
	// deny rules silently missing would be worse than a server that does
	// not start. "/path" rules anchor at its directory.
	PolicyFile string
	// Flag holds rules from the server's flags. "/path" rules anchor at
	// Cwd, as for Claude Code's command-line rules.
	Flag Settings
	// Workspace is the session's project root (absolute).
	Workspace string
	// Cwd is the session's original working directory; "" means Workspace.
	Cwd string
	// ReadWorkspaceFiles turns on reading the workspace's
	// .claude/settings.json (project) and .claude/settings.local.json
	// (local). Off by default in the server: those files are writable by
	// the agent whose calls they would govern, so a planted allow rule
	// would approve itself in the next session (security.md §1 #13, #14:
	// settings come from the orchestrator, never from the workspace). Turning
	// it on is the operator's statement that the workspace is trusted, and
	// stands for Claude Code's workspace-trust dialog: project allow rules
	// and additionalDirectories then apply
	// (https://code.claude.com/docs/en/permissions "Project allow rules and
	// workspace trust"). The files are read once, when the session is
	// created: edits made during the session apply to later sessions only.
	ReadWorkspaceFiles bool
	// User holds the caller's own settings, given at CreateSession.
	User Settings
	// UserRoot anchors the User settings' "/path" rules; Claude Code uses
	// ~/.claude. "" means Home/.claude when Home is set; with neither,
	// "/path" rules in User settings are refused.
	UserRoot string
	// Home is the caller's home directory, used for UserRoot's default.
	Home string
	// CLIArg holds the permissions given with CreateSession.
	CLIArg Settings
	// Session holds allow rules added by answers to asks ("yes, don't ask
	// again"); SessionDeny and SessionAsk deny and ask rules added the
	// same way.
	Session     []string
	SessionDeny []string
	SessionAsk  []string
}

// LoadSources gathers the sources in priority order, skipping empty ones.
// Workspace files that do not exist are skipped; any file that exists but
// cannot be read or parsed is an error, as is a workspace settings path that
// leads out of the workspace through a symlink. It does not compile the
// rules: Compile does, all or nothing.
func LoadSources(opts LoadOptions) ([]SourceSettings, error) {
	cwd := opts.Cwd
	if cwd == "" {
		cwd = opts.Workspace
	}
	if cwd != "" && !filepath.IsAbs(cwd) {
		return nil, fmt.Errorf("working directory %q is not absolute", cwd)
	}
	var out []SourceSettings
	add := func(src Source, root, origin string, s Settings) error {
		if err := s.Validate(); err != nil {
			return fmt.Errorf("%s (%s): %w", src, origin, err)
		}
		if !s.IsZero() {
			out = append(out, SourceSettings{Source: src, Root: root, Settings: s, Origin: origin})
		}
		return nil
	}

	if opts.PolicyFile != "" {
		abs, err := filepath.Abs(opts.PolicyFile)
		if err != nil {
			return nil, err
		}
		s, err := ParseSettingsFile(abs)
		if err != nil {
			return nil, err
		}
		if err := add(SourcePolicy, filepath.Dir(abs), abs, s); err != nil {
			return nil, err
		}
	}
	if err := add(SourceFlag, cwd, "server flags", opts.Flag); err != nil {
		return nil, err
	}

	var project, local Settings
	var projectOK, localOK bool
	if opts.ReadWorkspaceFiles {
		if opts.Workspace == "" || !filepath.IsAbs(opts.Workspace) {
			return nil, fmt.Errorf("workspace %q is not absolute", opts.Workspace)
		}
		var err error
		if project, projectOK, err = readWorkspaceSettings(opts.Workspace, ".claude/settings.json"); err != nil {
			return nil, err
		}
		if local, localOK, err = readWorkspaceSettings(opts.Workspace, ".claude/settings.local.json"); err != nil {
			return nil, err
		}
	}
	if projectOK {
		if err := add(SourceProject, opts.Workspace, filepath.Join(opts.Workspace, ".claude/settings.json"), project); err != nil {
			return nil, err
		}
	}

	userRoot := opts.UserRoot
	if userRoot == "" && opts.Home != "" {
		userRoot = filepath.Join(opts.Home, ".claude")
	}
	if err := add(SourceUser, userRoot, "CreateSession user settings", opts.User); err != nil {
		return nil, err
	}
	if localOK {
		if err := add(SourceLocal, cwd, filepath.Join(opts.Workspace, ".claude/settings.local.json"), local); err != nil {
			return nil, err
		}
	}
	if err := add(SourceCLIArg, cwd, "CreateSession", opts.CLIArg); err != nil {
		return nil, err
	}
	if err := add(SourceSession, cwd, "session", Settings{Allow: opts.Session, Deny: opts.SessionDeny, Ask: opts.SessionAsk}); err != nil {
		return nil, err
	}
	return out, nil
}

// readWorkspaceSettings reads a settings file inside the workspace through
// an os.Root, so that a symlinked .claude or settings file cannot make
// toold read a file outside the workspace. A missing file is not an error.
func readWorkspaceSettings(workspace, rel string) (Settings, bool, error) {
	origin := filepath.Join(workspace, rel)
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return Settings{}, false, fmt.Errorf("settings %s: %w", origin, err)
	}
	defer root.Close()
	f, err := root.OpenFile(rel, os.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return Settings{}, false, nil
	}
	if err != nil {
		return Settings{}, false, fmt.Errorf("settings %s: %w", origin, err)
	}
	defer f.Close()
	s, err := readSettings(f, origin)
	if err != nil {
		return Settings{}, false, err
	}
	return s, true, nil
}
