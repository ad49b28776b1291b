package main

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"strings"
	"time"

	"github.com/toold/toold/internal/audit"
	"github.com/toold/toold/internal/classifier"
	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
)

// classifierConfig is auto mode's classifier: a ClassifierService endpoint
// or a command, never both; neither leaves auto mode unavailable.
type classifierConfig struct {
	Endpoint   string
	Insecure   bool
	CAFile     string
	ServerName string
	// Command is the program and its arguments, split on spaces.
	Command []string
	Timeout time.Duration
	// DenialLimit denials by the classifier of a session's calls within
	// --denial-window pause it for the session: its asks go to a person.
	// A person's denials are not among them (--denial-limit counts those).
	DenialLimit int
}

func (c classifierConfig) enabled() bool { return c.Endpoint != "" || len(c.Command) > 0 }

type classifierFlags struct {
	endpoint, caFile, serverName, command *string
	insecure                              *bool
	timeout                               *time.Duration
	limit                                 *int
}

func addClassifierFlags(fs *flag.FlagSet) *classifierFlags {
	return &classifierFlags{
		endpoint:   fs.String("classifier-endpoint", "", "address of the toold.v1.ClassifierService that answers the asks of sessions in auto mode (PERMISSION_MODE_AUTO); TLS unless --classifier-insecure"),
		insecure:   fs.Bool("classifier-insecure", false, "dial --classifier-endpoint without TLS"),
		caFile:     fs.String("classifier-ca-file", "", "PEM roots that --classifier-endpoint's certificate must chain to (default: the system's)"),
		serverName: fs.String("classifier-server-name", "", "name --classifier-endpoint's certificate must carry (default: the endpoint's host)"),
		command:    fs.String("classifier-command", "", "program (and arguments, split on spaces) that answers the asks of sessions in auto mode: a ClassifyRequest as JSON on stdin, {\"verdict\": \"allow|deny|ask\", \"reason\": \"...\"} on stdout"),
		timeout:    fs.Duration("classifier-timeout", classifier.DefaultTimeout, "time the classifier has to answer; a classifier that does not answer in time leaves the call to a person"),
		limit:      fs.Int("classifier-denial-limit", classifier.DefaultLimit, "denials by auto mode's classifier of a session's calls within --denial-window after which it pauses for the session: its asks go to a person (a person's denials do not count; --denial-limit counts those)"),
	}
}

func (f *classifierFlags) config() (classifierConfig, error) {
	c := classifierConfig{Endpoint: *f.endpoint, Insecure: *f.insecure, CAFile: *f.caFile, ServerName: *f.serverName,
		Command: strings.Fields(*f.command), Timeout: *f.timeout, DenialLimit: *f.limit}
	switch {
	case c.Endpoint != "" && len(c.Command) > 0:
		return c, fmt.Errorf("--classifier-endpoint and --classifier-command: give one")
	case c.Timeout <= 0:
		return c, fmt.Errorf("--classifier-timeout %s: want a positive duration", c.Timeout)
	case c.DenialLimit < 1:
		return c, fmt.Errorf("--classifier-denial-limit %d: want 1 or more", c.DenialLimit)
	case c.Endpoint == "" && (c.Insecure || c.CAFile != "" || c.ServerName != ""):
		return c, fmt.Errorf("--classifier-insecure, --classifier-ca-file and --classifier-server-name need --classifier-endpoint")
	}
	return c, nil
}

// newClassifier builds auto mode's classifier, or nil when none is
// configured. Its input is redacted with the audit log's patterns.
func newClassifier(cfg *config, st store.Store, log *slog.Logger) (*classifier.Classifier, error) {
	c := cfg.Classifier
	if !c.enabled() {
		return nil, nil
	}
	var backend classifier.Backend
	var err error
	if c.Endpoint != "" {
		backend, err = classifier.NewGRPC(classifier.GRPCOptions{Endpoint: c.Endpoint, Insecure: c.Insecure, CAFile: c.CAFile, ServerName: c.ServerName})
	} else {
		backend, err = classifier.NewCommand(classifier.CommandOptions{Path: c.Command[0], Args: c.Command[1:]})
	}
	if err != nil {
		return nil, configError{err}
	}
	res, err := audit.CompileRedactions(cfg.Audit.Redact)
	if err != nil {
		return nil, configError{err}
	}
	redact := audit.Redactor(res)
	log.Info("auto mode available", "classifier", backend.Name(), "timeout", c.Timeout, "denial_limit", c.DenialLimit, "denial_window", cfg.DenialWindow)
	return classifier.New(classifier.Options{
		Backend: backend, Denials: st, Timeout: c.Timeout,
		Limit: c.DenialLimit, Window: cfg.DenialWindow,
		Redact: redact, Logger: log,
	})
}

// bothDecisions tells both callbacks of every decision (either may be nil).
func bothDecisions(a, b func(context.Context, *exec.Call, policy.Decision)) func(context.Context, *exec.Call, policy.Decision) {
	return func(ctx context.Context, c *exec.Call, d policy.Decision) {
		if a != nil {
			a(ctx, c, d)
		}
		if b != nil {
			b(ctx, c, d)
		}
	}
}
