package main

import (
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/server"
)

// config is every setting toold takes, parsed and checked before anything
// starts. Each flag falls back to a TOOLD_* environment variable.
type config struct {
	Listen             string
	WorkspaceRoot      string
	LogLevel           slog.Level
	LogFormat          string
	MaxToolConcurrency int
	MaxCallsPerRequest int
	ShutdownTimeout    time.Duration
	// DrainDelay: after readiness goes NOT_SERVING on SIGTERM, new streams
	// are still accepted this long, while load balancers take the
	// replica out (a preStop delay).
	DrainDelay time.Duration
	// StreamKeepalive: an Execute or Attach stream that sent nothing this
	// long gets a keepalive event (zero: none).
	StreamKeepalive time.Duration

	Settings              string
	AllowedTools          []string
	DisallowedTools       []string
	ReadWorkspaceSettings bool
	// StrictInputJSON refuses input_json with a duplicate key, or that is
	// not a JSON object (Claude Code reads the last key and spreads other
	// values into an object).
	StrictInputJSON bool
	// StrictRules refuses permission rules that do not parse.
	StrictRules bool
	// BareFileRulesCoverFamily: a bare Read/Edit deny or ask covers the
	// whole family and Bash commands' files.
	BareFileRulesCoverFamily bool
	PermissionTimeout        time.Duration
	DenialLimit              int
	DenialWindow             time.Duration

	RedisURL       string
	RedisKeyPrefix string
	SessionTTL     time.Duration
	TenantSettings string
	ResultTTL      time.Duration
	CallLease      time.Duration
	// SweepInterval is how often the leftovers of sessions that ended
	// without a delete are released; 0: never.
	SweepInterval time.Duration

	Sandbox sandbox.Options
	Runtime runtimeConfig
	Hooks   hooksConfig
	Auth    authConfig
	// Classifier answers the asks of sessions in auto mode.
	Classifier classifierConfig

	ToolSearch toolSearchConfig
	MCP        mcpConfig
	Skills     skillsConfig
	Console    consoleConfig

	Telemetry telemetryConfig
	Audit     auditConfig
	Limits    limitsConfig
	Delegate  delegateConfig

	Connections server.Connections
	// PprofListen is where Go's profiling endpoints listen; empty: nowhere.
	PprofListen string
}

// envName is the variable a flag falls back to: --log-level → TOOLD_LOG_LEVEL.
func envName(flagName string) string {
	return "TOOLD_" + strings.ToUpper(strings.ReplaceAll(flagName, "-", "_"))
}

func parseConfig(args []string, getenv func(string) string) (*config, error) {
	fs := flag.NewFlagSet("toold", flag.ContinueOnError)
	fs.SetOutput(new(strings.Builder))
	var (
		listen      = fs.String("listen", "127.0.0.1:50051", "gRPC listen address")
		root        = fs.String("workspace-root", filepath.Join(os.TempDir(), "toold", "workspaces"), "directory that every session's workspace must lie in; sessions without a workspace get a fresh directory here")
		logLevel    = fs.String("log-level", "info", "debug, info, warn or error")
		logFormat   = fs.String("log-format", "text", "json or text")
		concurrency = fs.Int("max-tool-concurrency", 10, "concurrency-safe calls of one batch that run at once")
		maxCalls    = fs.Int("max-calls-per-request", 64, "tool calls allowed in one Execute request")
		shutdown    = fs.Duration("shutdown-timeout", 30*time.Second, "alias of --drain-timeout")
		drainDelay  = fs.Duration("drain-delay", 0, "on SIGTERM, how long to keep accepting new calls after readiness turns NOT_SERVING (let endpoints update)")
		settings    = fs.String("settings", "", "operator settings file (Claude Code settings.json shape): the policySettings source")
		allowed     = fs.String("allowed-tools", "", "comma-separated allow rules for every session (flagSettings), e.g. \"Bash(git status),Read\"")
		disallowed  = fs.String("disallowed-tools", "", "comma-separated deny rules for every session (flagSettings)")
		strictJSON  = fs.Bool("strict-input-json", false, "refuse a call's input_json with a duplicate key or that is not a JSON object (default: read it as Claude Code does, the last duplicate winning)")
		bareFamily  = fs.Bool("bare-file-rules-cover-family", false, "make a bare Read or Edit deny or ask rule (or Read(*), Edit(*)) cover every tool of its family and the files of Bash commands, as Read(//**) would; by default it is about the tool it names, as in Claude Code, where a bare Read deny leaves Grep, Glob and cat running")
		strictRules = fs.Bool("strict-rules", false, "refuse a permission rule that does not parse (CreateSession and UpdateSession fail, a bad --settings file stops the server); by default it is ignored with a warning, as Claude Code ignores it")
		wsSettings  = fs.Bool("read-workspace-settings", false, "read each workspace's .claude/settings.json and settings.local.json (only for trusted workspaces)")
		permTimeout = fs.Duration("permission-timeout", 5*time.Minute, "how long a permission request waits for an answer before the call is denied")
		denialLimit = fs.Int("denial-limit", 0, "permission requests people refused (or nobody answered) within --denial-window after which a session's further asks are denied at once (0: off, as Claude Code keeps asking); auto mode's classifier denials are not counted (--classifier-denial-limit)")
		denialWin   = fs.Duration("denial-window", 5*time.Minute, "the window of --denial-limit and --classifier-denial-limit")
		redisURL    = fs.String("redis-url", "", "redis:// or rediss:// URL of the shared state store; empty: in-memory store")
		redisPrefix = fs.String("redis-key-prefix", "toold:", "prefix of every Redis key")
		sessionTTL  = fs.Duration("session-ttl", 24*time.Hour, "Redis store: a session idle this long expires")
		tenantDir   = fs.String("tenant-settings", "", "directory of per-tenant settings files, <tenant>.json in settings.json shape: the \"user\" rules of each tenant's sessions")
		resultTTL   = fs.Duration("result-ttl", time.Hour, "how long a call's result and events are kept for retries and Attach")
		callLease   = fs.Duration("call-lease", 30*time.Second, "a running call whose replica has not renewed its claim for this long counts as abandoned")
		sweepEvery  = fs.Duration("sweep-interval", 5*time.Minute, "how often to remove the fresh workspaces (and release the shells) of sessions that ended without DeleteSession, e.g. expired in Redis; 0: never")
	)
	sandboxF, runtimeF := addSandboxFlags(fs), addRuntimeFlags(fs)
	hooksF := addHooksFlags(fs)
	classifierF := addClassifierFlags(fs)
	authF := addAuthFlags(fs)
	toolSearchF := addToolSearchFlags(fs)
	skillsF := addSkillsFlags(fs)
	mcpF := addMCPFlags(fs)
	consoleF := addConsoleFlags(fs)
	connF := addConnectionFlags(fs)
	fs.DurationVar(shutdown, "drain-timeout", 30*time.Second, "on SIGTERM, how long running Execute streams may finish before their calls are killed (process groups)")
	keepalive := fs.Duration("stream-keepalive", 15*time.Second, "send a keepalive event on an Execute or Attach stream that sent nothing this long, so that proxies keep a silent call's stream open (0: none)")
	telemetryF, auditF := addTelemetryFlags(fs), addAuditFlags(fs)
	limitsF := addLimitsFlags(fs)
	delegateF := addDelegateFlags(fs)
	pprofF := addPprofFlags(fs)
	// An environment variable sets the default; an explicit flag wins.
	var envErr error
	fs.VisitAll(func(f *flag.Flag) {
		if v := getenv(envName(f.Name)); v != "" {
			if err := f.Value.Set(v); err != nil && envErr == nil {
				envErr = fmt.Errorf("%s=%q: %w", envName(f.Name), v, err)
			}
		}
	})
	if envErr != nil {
		return nil, envErr
	}
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil, errHelp{usage(fs)}
		}
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments: %s", strings.Join(fs.Args(), " "))
	}
	cfg := &config{
		Listen: *listen, WorkspaceRoot: *root, LogFormat: *logFormat,
		MaxToolConcurrency: *concurrency, MaxCallsPerRequest: *maxCalls, ShutdownTimeout: *shutdown,
		Settings: *settings, AllowedTools: splitRules(*allowed), DisallowedTools: splitRules(*disallowed),
		ReadWorkspaceSettings: *wsSettings, StrictInputJSON: *strictJSON, StrictRules: *strictRules, BareFileRulesCoverFamily: *bareFamily, PermissionTimeout: *permTimeout, DenialLimit: *denialLimit, DenialWindow: *denialWin,
		RedisURL: *redisURL, RedisKeyPrefix: *redisPrefix, SessionTTL: *sessionTTL,
		ResultTTL: *resultTTL, CallLease: *callLease, SweepInterval: *sweepEvery,
		TenantSettings: *tenantDir,
	}
	var err error
	if cfg.Sandbox, err = sandboxF.config(); err != nil {
		return nil, err
	}
	if cfg.Runtime, err = runtimeF.config(); err != nil {
		return nil, err
	}
	if cfg.Delegate, err = delegateF(); err != nil {
		return nil, err
	}
	if cfg.Hooks, err = hooksF.config(); err != nil {
		return nil, err
	}
	if cfg.Classifier, err = classifierF.config(); err != nil {
		return nil, err
	}
	if cfg.Auth, err = authF(); err != nil {
		return nil, err
	}
	if cfg.ToolSearch, err = toolSearchF.config(); err != nil {
		return nil, err
	}
	if cfg.MCP, err = mcpF.config(); err != nil {
		return nil, err
	}
	if cfg.Skills, err = skillsF.config(); err != nil {
		return nil, err
	}
	if cfg.Console, err = consoleF(); err != nil {
		return nil, err
	}
	if cfg.Telemetry, err = telemetryF.config(getenv); err != nil {
		return nil, err
	}
	if cfg.Audit, err = auditF.config(); err != nil {
		return nil, err
	}
	cfg.StreamKeepalive = *keepalive
	if cfg.Limits, err = limitsF.config(); err != nil {
		return nil, err
	}
	if cfg.Connections, err = connF.config(); err != nil {
		return nil, err
	}
	cfg.DrainDelay = *drainDelay
	if cfg.PprofListen, err = pprofF(); err != nil {
		return nil, err
	}
	if err := cfg.reach(); err != nil {
		return nil, err
	}
	if err := cfg.LogLevel.UnmarshalText([]byte(*logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level %q: want debug, info, warn or error", *logLevel)
	}
	return cfg, cfg.check()
}

// minStreamKeepalive keeps keepalives from flooding a stream.
const minStreamKeepalive = 10 * time.Millisecond

func (c *config) check() error {
	if _, port, err := net.SplitHostPort(c.Listen); err != nil {
		return fmt.Errorf("--listen %q: %w", c.Listen, err)
	} else if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
		return fmt.Errorf("--listen %q: bad port", c.Listen)
	}
	if !filepath.IsAbs(c.WorkspaceRoot) {
		return fmt.Errorf("--workspace-root %q must be an absolute path", c.WorkspaceRoot)
	}
	if c.LogFormat != "json" && c.LogFormat != "text" {
		return fmt.Errorf("--log-format %q: want json or text", c.LogFormat)
	}
	if c.MaxToolConcurrency < 1 || c.MaxToolConcurrency > 1000 {
		return fmt.Errorf("--max-tool-concurrency %d: want 1..1000", c.MaxToolConcurrency)
	}
	if c.MaxCallsPerRequest < 1 || c.MaxCallsPerRequest > 10000 {
		return fmt.Errorf("--max-calls-per-request %d: want 1..10000", c.MaxCallsPerRequest)
	}
	if c.PermissionTimeout <= 0 || c.DenialWindow <= 0 {
		return fmt.Errorf("--permission-timeout and --denial-window must be positive")
	}
	if c.DenialLimit < 0 {
		return fmt.Errorf("--denial-limit %d: want 0 (off) or more", c.DenialLimit)
	}
	if c.RedisURL != "" && !strings.HasPrefix(c.RedisURL, "redis://") && !strings.HasPrefix(c.RedisURL, "rediss://") {
		return fmt.Errorf("--redis-url: want a redis:// or rediss:// URL")
	}
	if c.SessionTTL <= 0 {
		return fmt.Errorf("--session-ttl %s: want a positive duration", c.SessionTTL)
	}
	if c.TenantSettings != "" {
		if fi, err := os.Stat(c.TenantSettings); err != nil || !fi.IsDir() {
			return fmt.Errorf("--tenant-settings %q: want a directory of <tenant>.json files", c.TenantSettings)
		}
	}
	if c.ResultTTL < time.Second {
		return fmt.Errorf("--result-ttl %s: want 1s or more", c.ResultTTL)
	}
	if c.CallLease < time.Second {
		return fmt.Errorf("--call-lease %s: want 1s or more", c.CallLease)
	}
	if c.SweepInterval < 0 {
		return fmt.Errorf("--sweep-interval %s: want 0 (off) or a positive duration", c.SweepInterval)
	}
	if c.ShutdownTimeout <= 0 {
		return fmt.Errorf("--drain-timeout %s: want a positive duration", c.ShutdownTimeout)
	}
	if c.DrainDelay < 0 {
		return fmt.Errorf("--drain-delay %s: want 0 or more", c.DrainDelay)
	}
	if c.StreamKeepalive != 0 && c.StreamKeepalive < minStreamKeepalive {
		return fmt.Errorf("--stream-keepalive %s: want 0 (none) or %s or more", c.StreamKeepalive, minStreamKeepalive)
	}
	if c.Audit.Dest == "" && len(c.Audit.Redact) > 0 && !c.Classifier.enabled() {
		// The patterns hide secrets in what the audit log and the
		// classifier are sent; with neither they would do nothing.
		return fmt.Errorf("--audit-redact needs --audit-log or a classifier")
	}
	if err := c.Auth.check(c.Listen); err != nil {
		return err
	}
	return nil
}

// splitRules splits a comma-separated rule list; commas inside a rule's
// parentheses (Bash(a,b)) do not split.
func splitRules(s string) []string {
	var out []string
	depth, start := 0, 0
	for i, r := range s {
		switch {
		case r == '(':
			depth++
		case r == ')' && depth > 0:
			depth--
		case r == ',' && depth == 0:
			if t := strings.TrimSpace(s[start:i]); t != "" {
				out = append(out, t)
			}
			start = i + 1
		}
	}
	if t := strings.TrimSpace(s[start:]); t != "" {
		out = append(out, t)
	}
	return out
}

type errHelp struct{ text string }

func (e errHelp) Error() string { return e.text }

func usage(fs *flag.FlagSet) string {
	var b strings.Builder
	b.WriteString("Usage: toold [flags]\n\nEvery flag can also be set as TOOLD_<NAME> (e.g. TOOLD_LISTEN).\n\n")
	fs.SetOutput(&b)
	fs.PrintDefaults()
	return b.String()
}
