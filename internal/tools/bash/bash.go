// Package bash is the Bash tool: it runs a command with `bash -c` in the
// session's working directory, streams its output as progress, and carries
// a `cd` over to the session's next call.
package bash

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/shell"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/shells"
)

const (
	defaultTimeoutMS = 120000
	maxTimeoutMS     = 600000
	// maxCommandBytes keeps the script under Linux's limit on one argv
	// string (128 KiB), with room for the cwd trap.
	maxCommandBytes = 100000
	// waitDelay is how long a call waits, after bash exits, for background
	// processes that still hold its output open before they are killed.
	waitDelay = 250 * time.Millisecond
)

// Options configure the tool. The zero value is ready to use.
type Options struct {
	// BashPath is the bash binary. Empty: bash is looked up in PATH once,
	// by New.
	BashPath string
	// TempDir is where the tool makes its private directory for per-call
	// files. Empty: /dev/shm if usable, else os.TempDir().
	TempDir string
	// Shells keeps the commands run with run_in_background. Nil: the
	// tool has no run_in_background field.
	Shells *shells.Registry
	// Sandbox confines every command, foreground and background. Nil (or
	// a launcher in mode off): commands run as toold's user in a process
	// group of their own.
	Sandbox *sandbox.Launcher
	// MaxOutputChars is how much of the output a result keeps (default
	// 30000, at most 4 Mi). Past 30000 characters the engine stores the
	// result whole and the model gets a preview and a handle to page
	// through with Read, so a server sets it high to keep whole outputs.
	MaxOutputChars int
	// TimeoutKills kills every command at its timeout. False (Claude
	// Code's behaviour): only a command whose first word is sleep is
	// killed; any other is moved to the background shells (when Shells is
	// set) and keeps running.
	TimeoutKills bool
}

type bashTool struct {
	bash      string
	keepChars int
	stateDir  string
	shells    *shells.Registry
	sandbox   *sandbox.Launcher
	// timeoutKills: Options.TimeoutKills.
	timeoutKills bool
	// initErr says why the tool cannot run commands (no bash, no private
	// directory); every call reports it.
	initErr error
}

// New returns the Bash tool. A missing bash or an unusable temporary
// directory does not fail New: each call then reports the problem.
func New(opts Options) tool.Tool {
	t := &bashTool{bash: opts.BashPath, shells: opts.Shells, keepChars: maxResultChars, timeoutKills: opts.TimeoutKills}
	if opts.MaxOutputChars > 0 {
		t.keepChars = min(opts.MaxOutputChars, maxKeepChars)
	}
	if opts.Sandbox.Enabled() {
		t.sandbox = opts.Sandbox
	}
	if t.bash == "" && usable("/bin/bash") {
		// Claude Code's shell, whose path bash puts in its messages.
		t.bash = "/bin/bash"
	}
	if t.bash == "" {
		p, err := exec.LookPath("bash")
		if err != nil {
			t.initErr = fmt.Errorf("bash was not found on the server: %w", err)
			return t
		}
		t.bash = p
	}
	if abs, err := filepath.Abs(t.bash); err == nil {
		t.bash = abs
	}
	dir, err := privateDir(opts.TempDir)
	if err != nil {
		t.initErr = fmt.Errorf("the Bash tool has no private temporary directory: %w", err)
	}
	t.stateDir = dir
	return t
}

// privateDir makes the directory for the per-call files, mode 0700 so
// that only toold's user can reach them. Without a configured base it
// prefers /dev/shm: creating, writing and removing a file per call costs
// about 1 ms on a journaling disk file system and a tenth of that on tmpfs.
func privateDir(base string) (string, error) {
	if base == "" {
		if fi, err := os.Stat("/dev/shm"); err == nil && fi.IsDir() {
			if dir, err := os.MkdirTemp("/dev/shm", "toold-bash-"); err == nil {
				return dir, nil
			}
		}
	}
	return os.MkdirTemp(base, "toold-bash-")
}

func (t *bashTool) Definition() tool.Definition {
	if t.shells != nil {
		return tool.Definition{Name: "Bash", Description: backgroundDescription, InputSchema: backgroundInputSchema, MaxResultChars: maxResultChars, Command: true, Classifier: classifierInput}
	}
	return tool.Definition{
		Name:           "Bash",
		Description:    description,
		InputSchema:    inputSchema,
		MaxResultChars: maxResultChars,
		Classifier:     classifierInput,
		Command:        true,
	}
}

// classifierInput: auto mode's classifier judges the command where it runs.
var classifierInput = tool.ClassifierInput{Fields: []string{"command"}, Cwd: true}

type input struct {
	Command         string   `json:"command"`
	Timeout         *float64 `json:"timeout"`
	Description     string   `json:"description"`
	RunInBackground bool     `json:"run_in_background"`
}

func (t *bashTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("input is not a valid Bash call: %v", err)
	}
	if strings.TrimSpace(in.Command) == "" {
		return nil, tool.InvalidInputf("command is empty: give the bash command to run")
	}
	if strings.IndexByte(in.Command, 0) >= 0 {
		return nil, tool.InvalidInputf("command contains a NUL byte, which bash cannot receive; remove it")
	}
	if len(in.Command) > maxCommandBytes {
		return nil, tool.InvalidInputf("command is %d bytes long, more than the %d allowed; write the script to a file with the Write tool and run that file", len(in.Command), maxCommandBytes)
	}
	// Refused rather than run unanalysed: the parse of a command over the
	// bound would cost memory out of proportion to its size.
	if err := shell.CheckLimits(in.Command); err != nil {
		return nil, tool.InvalidInputf("%v", err)
	}
	timeout := defaultTimeoutMS * time.Millisecond
	negativeMS := 0.0
	if in.Timeout != nil {
		// As in Claude Code, a timeout over the maximum is cut to it, and
		// one of 0 (or less) means the default.
		ms := *in.Timeout
		if math.IsNaN(ms) {
			return nil, tool.InvalidInputf("timeout is not a number")
		}
		if ms > 0 {
			timeout = time.Duration(min(ms, maxTimeoutMS) * float64(time.Millisecond))
		}
		if ms < 0 {
			negativeMS = ms
		}
	}
	return &call{
		tool:        t,
		command:     in.Command,
		description: in.Description,
		timeout:     timeout,
		negativeMS:  negativeMS,
		background:  in.RunInBackground,
		class:       classify(in.Command),
	}, nil
}

// call is one parsed Bash call.
type call struct {
	tool        *bashTool
	command     string
	description string
	timeout     time.Duration
	// negativeMS is a negative timeout as given (else 0). Claude Code
	// then times the command out at once: see timer.
	negativeMS float64
	// background: run_in_background; the timeout does not apply.
	background bool
	class      classification
}

// ShellAnalysis is the analysis the call was classified by: the engine's
// one analysis of the line (exec.ShellAnalysed).
func (c *call) ShellAnalysis() *shell.Analysis { return c.class.analysis }

func (c *call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: c.class.readOnly, ConcurrencySafe: c.class.readOnly}
}

// Activity flags a call as a search, read or listing only when every
// simple command in it is one of those (and the whole command is
// read-only); a pipeline such as `grep x | head` is then both a search and
// a read.
func (c *call) Activity() tool.Activity {
	text := c.description
	if strings.TrimSpace(text) == "" {
		text = c.command
	}
	verb := "Run: "
	if c.background {
		verb = "Run in background: "
	}
	return tool.Activity{
		Summary: verb + summaryLine(text, 80),
		Search:  c.class.search,
		Read:    c.class.read,
		List:    c.class.list,
	}
}

// summaryLine is the first non-blank line of s, without control
// characters, at most max characters.
func summaryLine(s string, max int) string {
	for line := range strings.Lines(s) {
		if strings.TrimSpace(line) != "" {
			s = line
			break
		}
	}
	s, _, _ = strings.Cut(s, "\n")
	s = strings.TrimSpace(strings.Map(func(r rune) rune {
		if r < 0x20 || r == 0x7f {
			return ' '
		}
		return r
	}, s))
	if n := 0; len(s) > max {
		for i := range s {
			if n == max-1 {
				return s[:i] + "…"
			}
			n++
		}
	}
	return s
}

// usable reports whether path is an executable regular file.
func usable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
