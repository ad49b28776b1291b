// Package classifier is auto mode's answerer: where the permission rules
// would ask a person, a session in auto mode first asks the operator's
// classifier, a toold.v1.ClassifierService (GRPC) or a program speaking
// JSON on stdin and stdout (Command). The classifier sees what each tool
// declares of its input (tool.Definition.Classifier), redacted, and the
// session's recent decisions; it answers allow, deny (with a reason the
// model reads) or ask (a person decides).
//
// Three things keep it a helper rather than a gate that can be argued
// past: the engine consults it only about asks that no explicit ask rule
// and no hook raised (deny rules and hooks are decided before, and a deny
// is never put to it; internal/exec's auto_mode.go); a classifier that fails, times out or answers nothing
// counts as ask (fail closed); and denial tracking is its brake: once the
// classifier has denied Limit of the session's calls within Window, its
// asks go to a person without the classifier.
package classifier

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Backend is one way of reaching the operator's classifier.
type Backend interface {
	// Classify decides one call. ctx carries the deadline.
	Classify(ctx context.Context, req *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error)
	// Name is how logs and reasons name the classifier.
	Name() string
	Close() error
}

// Denials is the session's denial tracking (store.Store has these). The
// classifier counts its own denials, store.ClassifierDenials, and reads
// only those: a person's denials do not pause it, and its denials do not
// count towards --denial-limit.
type Denials interface {
	RecordDenial(ctx context.Context, id string, kind store.DenialKind, at time.Time, window time.Duration) (int, error)
	CountDenials(ctx context.Context, id string, kind store.DenialKind, now time.Time, window time.Duration) (int, error)
}

// Source is the decision source of what the classifier decided.
const Source = exec.ClassifierSource

// Defaults.
const (
	DefaultTimeout = 10 * time.Second
	DefaultLimit   = 3
)

// Options configure a Classifier.
type Options struct {
	Backend Backend
	// Denials counts the classifier's denials of each session, shared
	// by the replicas of one store.
	Denials Denials
	// Timeout bounds one answer (default DefaultTimeout).
	Timeout time.Duration
	// Limit denials by the classifier within Window pause it for the
	// session: its asks go to a person (default DefaultLimit, Window 5
	// minutes).
	Limit  int
	Window time.Duration
	// Redact hides secrets in what the classifier is sent (the audit
	// log's patterns); nil sends the text as is.
	Redact func(string) string
	Logger *slog.Logger
	Now    func() time.Time
}

// Classifier implements exec.Classifier.
type Classifier struct {
	opts   Options
	recent *Recent
}

var _ exec.Classifier = (*Classifier)(nil)

// New checks opts and fills in the defaults.
func New(opts Options) (*Classifier, error) {
	if opts.Backend == nil || opts.Denials == nil {
		return nil, errors.New("classifier: a backend and denial tracking are needed")
	}
	if opts.Timeout <= 0 {
		opts.Timeout = DefaultTimeout
	}
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	if opts.Window <= 0 {
		opts.Window = 5 * time.Minute
	}
	if opts.Redact == nil {
		opts.Redact = func(s string) string { return s }
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Classifier{opts: opts, recent: NewRecent(recentPerSession, maxSessions)}, nil
}

// Close closes the backend.
func (k *Classifier) Close() error { return k.opts.Backend.Close() }

// Classify answers an ask of a session in auto mode.
func (k *Classifier) Classify(ctx context.Context, c *exec.Call, asked policy.Decision) policy.Decision {
	if d, paused := k.brake(ctx, c.Session.ID, asked); paused {
		return d
	}
	log := k.opts.Logger.With("session_id", c.Session.ID, "tool_use_id", c.ToolUseID, "tool", c.ToolName(), "classifier", k.opts.Backend.Name())
	cctx, cancel := context.WithTimeout(ctx, k.opts.Timeout)
	defer cancel()
	start := k.opts.Now()
	resp, err := k.opts.Backend.Classify(cctx, k.request(c, asked))
	if err != nil {
		if ctx.Err() == nil && (cctx.Err() != nil || errors.Is(err, context.DeadlineExceeded)) {
			err = fmt.Errorf("no answer within %s", k.opts.Timeout)
		}
		log.Warn("the classifier failed; a person decides", "error", err)
		return toPerson(asked, Source, "auto mode's classifier failed ("+err.Error()+"), so a person decides")
	}
	reason := k.opts.Redact(bounded(resp.GetReason(), maxReason))
	log.Info("classifier decision", "verdict", resp.GetVerdict().String(), "reason", reason, "elapsed", k.opts.Now().Sub(start))
	return k.answer(ctx, c.Session.ID, asked, resp.GetVerdict(), reason, log)
}

// brake hands the ask to a person when the classifier has denied Limit of
// the session's calls within Window, or when those cannot be counted.
func (k *Classifier) brake(ctx context.Context, sessionID string, asked policy.Decision) (policy.Decision, bool) {
	n, err := k.opts.Denials.CountDenials(ctx, sessionID, store.ClassifierDenials, k.opts.Now(), k.opts.Window)
	switch {
	case err != nil:
		return toPerson(asked, "denialTracking", "auto mode could not read the session's denials ("+err.Error()+"), so a person decides"), true
	case n >= k.opts.Limit:
		return toPerson(asked, "denialTracking", fmt.Sprintf("auto mode is paused for this session: the classifier denied %d of its calls in the last %s, so a person decides", n, k.opts.Window)), true
	}
	return policy.Decision{}, false
}

// answer turns the classifier's verdict into the call's decision; a deny
// is counted among the session's classifier denials.
func (k *Classifier) answer(ctx context.Context, sessionID string, asked policy.Decision, v tooldv1.ClassifierVerdict, reason string, log *slog.Logger) policy.Decision {
	switch v {
	case tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ALLOW:
		return policy.Decision{Behavior: policy.Allow, Reason: "allowed by auto mode's classifier" + because(reason), Source: Source, Parts: asked.Parts, Warnings: asked.Warnings}
	case tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_DENY:
		if _, err := k.opts.Denials.RecordDenial(context.WithoutCancel(ctx), sessionID, store.ClassifierDenials, k.opts.Now(), k.opts.Window); err != nil {
			log.Error("recording the classifier's denial failed", "error", err)
		}
		if reason == "" {
			reason = "Blocked by classifier."
		}
		return exec.ClassifierDenial(asked, reason)
	case tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ASK:
		return toPerson(asked, Source, "auto mode's classifier leaves it to a person"+because(reason))
	}
	log.Warn("the classifier gave no verdict; a person decides", "verdict", int32(v))
	return toPerson(asked, Source, "auto mode's classifier gave no verdict, so a person decides")
}

// toPerson keeps the ask (its parts, warnings and suggested rules, what a
// person answering needs) and says who sent it on and why.
func toPerson(asked policy.Decision, source, reason string) policy.Decision {
	d := asked
	d.Behavior = policy.Ask
	d.Source = source
	d.Reason = reason
	if asked.Reason != "" {
		d.Reason += " (" + asked.Reason + ")"
	}
	return d
}

func because(reason string) string {
	if reason == "" {
		return ""
	}
	return ": " + reason
}
