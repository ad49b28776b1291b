package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"

	"github.com/toold/toold/internal/audit"
	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
)

// auditConfig is where the audit log goes and what it hides.
type auditConfig struct {
	// Dest: "" off, "-" standard output, else a file appended to.
	Dest   string
	Redact []string
}

// patternList is a repeatable flag of comma-separated patterns.
type patternList []string

func (p *patternList) String() string { return strings.Join(*p, ",") }
func (p *patternList) Set(v string) error {
	*p = append(*p, audit.SplitPatterns(v)...)
	return nil
}

type auditFlags struct {
	dest   *string
	redact *patternList
}

func addAuditFlags(fs *flag.FlagSet) *auditFlags {
	f := &auditFlags{dest: fs.String("audit-log", "", "audit log: one JSON line per decision and per tool run; - for standard output, else a file appended to; empty: off"), redact: new(patternList)}
	fs.Var(f.redact, "audit-redact", "regular expression whose matches are replaced by [REDACTED] in what the audit log quotes (a Bash command line); repeatable or comma-separated (write a comma inside a pattern as \\,)")
	return f
}

func (f *auditFlags) config() (auditConfig, error) {
	c := auditConfig{Dest: *f.dest, Redact: *f.redact}
	if _, err := audit.CompileRedactions(c.Redact); err != nil {
		return c, fmt.Errorf("--audit-redact: %w", err)
	}
	return c, nil
}

// auditHooks is what the engine takes of the audit log: the decision
// callback and an interceptor around each tool run (both nil when off).
type auditHooks struct {
	onDecision   func(context.Context, *exec.Call, policy.Decision)
	interceptors []exec.Interceptor
	close        func()
}

// openAudit opens the audit log; close runs after the engine has stopped.
func openAudit(cfg auditConfig, log *slog.Logger) (*auditHooks, error) {
	if cfg.Dest == "" {
		return &auditHooks{close: func() {}}, nil
	}
	res, err := audit.CompileRedactions(cfg.Redact)
	if err != nil {
		return nil, configError{err}
	}
	l, err := audit.Open(cfg.Dest, res, log)
	if err != nil {
		return nil, err
	}
	return &auditHooks{
		onDecision:   l.Decision,
		interceptors: []exec.Interceptor{l.Interceptor()},
		close: func() {
			if err := l.Close(); err != nil {
				log.Warn("closing the audit log", "error", err)
			}
		},
	}, nil
}
