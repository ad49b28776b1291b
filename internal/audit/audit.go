// Package audit writes toold's audit log: one JSON line per permission
// decision and one per tool run, saying who (tenant, session) did what
// (tool, a digest of the input) and how it ended. Inputs are not logged
// beyond their digest, except a Bash call's command line, which passes
// through the operator's redaction patterns first.
package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/tool"
)

// Redacted replaces every match of a redaction pattern.
const Redacted = "[REDACTED]"

// Record is one line of the audit log.
type Record struct {
	Time time.Time `json:"time"`
	// Event is "decision" or "run".
	Event     string `json:"event"`
	Tenant    string `json:"tenant"`
	Session   string `json:"session"`
	ToolUseID string `json:"tool_use_id"`
	Tool      string `json:"tool"`
	// InputSHA256 is the hex SHA-256 of the call's input JSON as it was
	// validated (after coercion, and after any hook rewrote it).
	InputSHA256 string `json:"input_sha256"`
	// Command is a Bash call's command line, redacted.
	Command  string    `json:"command,omitempty"`
	Decision *Decision `json:"decision,omitempty"`
	// Outcome (runs): "ok" or the error kind (failed, timeout, ...).
	Outcome    string   `json:"outcome,omitempty"`
	ExitCode   *int     `json:"exit_code,omitempty"`
	DurationMS *float64 `json:"duration_ms,omitempty"`
}

// Decision is the permission decision of a call.
type Decision struct {
	Behavior string `json:"behavior"`
	Rule     string `json:"rule,omitempty"`
	Source   string `json:"source,omitempty"`
	// Reason, redacted, is kept for what auto mode decided (sources
	// classifier and denialTracking): why the classifier allowed, denied
	// or handed the call to a person.
	Reason string `json:"reason,omitempty"`
}

// Log writes records to one writer, a line at a time.
type Log struct {
	mu     sync.Mutex
	w      io.Writer
	closer io.Closer
	redact []*regexp.Regexp
	now    func() time.Time
	errLog *slog.Logger
}

// CompileRedactions compiles redaction patterns (Go regexp syntax).
func CompileRedactions(patterns []string) ([]*regexp.Regexp, error) {
	var out []*regexp.Regexp
	for _, p := range patterns {
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("redaction pattern %q: %w", p, err)
		}
		out = append(out, re)
	}
	return out, nil
}

// New writes to w. errLog, when set, hears about failed writes.
func New(w io.Writer, redact []*regexp.Regexp, errLog *slog.Logger) *Log {
	if errLog == nil {
		errLog = slog.New(slog.DiscardHandler)
	}
	return &Log{w: w, redact: redact, now: time.Now, errLog: errLog}
}

// Open opens dest: "-" is standard output, anything else a file that is
// appended to (created 0600: it names every caller).
func Open(dest string, redact []*regexp.Regexp, errLog *slog.Logger) (*Log, error) {
	if dest == "-" {
		return New(os.Stdout, redact, errLog), nil
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("audit log: %w", err)
	}
	l := New(f, redact, errLog)
	l.closer = f
	return l, nil
}

// Close closes the file Open opened.
func (l *Log) Close() error {
	if l.closer == nil {
		return nil
	}
	return l.closer.Close()
}

// Decision records a call's permission decision; it is exec.Config's
// OnDecision.
func (l *Log) Decision(ctx context.Context, c *exec.Call, dec policy.Decision) {
	r := l.record(ctx, "decision", c)
	r.Decision = &Decision{Behavior: dec.Behavior.String(), Rule: dec.Rule, Source: dec.Source}
	if dec.Source == "classifier" || (dec.Source == "denialTracking" && c.Session != nil && c.Session.Mode == "auto") {
		r.Decision.Reason = l.Redact(dec.Reason)
	}
	l.write(r)
}

// Interceptor records each tool run with its outcome and duration. It
// belongs in exec.Config.Interceptors, after the policy stage: only calls
// that were allowed get here.
func (l *Log) Interceptor() exec.Interceptor {
	return func(ctx context.Context, c *exec.Call, next exec.Handler) (*tool.Result, error) {
		start := l.now()
		res, err := next(ctx, c)
		r := l.record(ctx, "run", c)
		d := float64(l.now().Sub(start).Microseconds()) / 1000
		r.DurationMS = &d
		switch {
		case err != nil:
			r.Outcome = exec.ResultFromError(err).Kind.String()
		case res != nil && res.IsError:
			r.Outcome = res.Kind.String()
		default:
			r.Outcome = "ok"
		}
		if res != nil {
			if code, ok := res.Meta["exit_code"].(int); ok {
				r.ExitCode = &code
			}
		}
		l.write(r)
		return res, err
	}
}

func (l *Log) record(ctx context.Context, event string, c *exec.Call) Record {
	r := Record{Time: l.now().UTC(), Event: event, ToolUseID: c.ToolUseID, Tool: c.ToolName()}
	if c.Session != nil {
		r.Session, r.Tenant = c.Session.ID, c.Session.Tenant
	}
	if r.Tenant == "" {
		r.Tenant = session.Tenant(ctx)
	}
	sum := sha256.Sum256(c.Input)
	r.InputSHA256 = hex.EncodeToString(sum[:])
	if cmd, ok := c.Args["command"].(string); ok && r.Tool == "Bash" {
		r.Command = l.Redact(cmd)
	}
	return r
}

// Redact replaces every match of every pattern in s.
func (l *Log) Redact(s string) string { return Redactor(l.redact)(s) }

// Redactor hides what the patterns match, as the audit log does: what
// other parts of toold send out (auto mode's classifier input) is
// redacted the same way.
func Redactor(patterns []*regexp.Regexp) func(string) string {
	return func(s string) string {
		for _, re := range patterns {
			s = re.ReplaceAllLiteralString(s, Redacted)
		}
		return s
	}
}

func (l *Log) write(r Record) {
	b, err := json.Marshal(r)
	if err != nil {
		return
	}
	b = append(b, '\n')
	l.mu.Lock()
	_, err = l.w.Write(b)
	l.mu.Unlock()
	if err != nil {
		l.errLog.Error("writing the audit log failed", "error", err)
	}
}

// SplitPatterns splits a --audit-redact value: patterns separated by
// commas; a comma inside a pattern is written as \, .
func SplitPatterns(v string) []string {
	var out []string
	var cur strings.Builder
	for i := 0; i < len(v); i++ {
		switch {
		case v[i] == '\\' && i+1 < len(v) && v[i+1] == ',':
			cur.WriteByte(',')
			i++
		case v[i] == ',':
			if s := strings.TrimSpace(cur.String()); s != "" {
				out = append(out, s)
			}
			cur.Reset()
		default:
			cur.WriteByte(v[i])
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}
