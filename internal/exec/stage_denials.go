package exec

import (
	"context"
	"fmt"
	"log/slog"
	"time"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/telemetry"
)

// DenialStore counts a session's recent denials, by kind (store.Store
// does).
type DenialStore interface {
	CountDenials(ctx context.Context, sessionID string, kind store.DenialKind, now time.Time, window time.Duration) (int, error)
	RecordDenial(ctx context.Context, sessionID string, kind store.DenialKind, now time.Time, window time.Duration) (int, error)
}

// DenialTracking turns an ask into a denial when people have refused the
// session's permission requests Limit times within Window: an agent that
// keeps asking for what was refused gets an answer at once instead of
// another prompt. Limit 0 counts denials but never limits. It counts
// store.PersonDenials only: auto mode's classifier keeps its own count
// (its brake, internal/classifier), which neither adds to this one nor
// reads it.
type DenialTracking struct {
	Store     DenialStore
	Limit     int
	Window    time.Duration
	Now       func() time.Time
	Telemetry *telemetry.Recorder
	Logger    *slog.Logger
}

func (d DenialTracking) limit(ctx context.Context, c *Call, dec policy.Decision) policy.Decision {
	if d.Limit <= 0 {
		return dec
	}
	n, err := d.Store.CountDenials(ctx, c.Session.ID, store.PersonDenials, d.Now(), d.Window)
	if err != nil {
		// Fail closed: without the count, the call is not asked about.
		return policy.Decision{Behavior: policy.Deny, Reason: "denial tracking is unavailable: " + err.Error(), Source: "denialTracking"}
	}
	if n >= d.Limit {
		dec.Behavior = policy.Deny
		dec.Reason = fmt.Sprintf("%d permission requests of this session were denied in the last %s, so further requests are denied without asking (%s)", n, d.Window, dec.Reason)
		dec.Source = "denialTracking"
	}
	return dec
}

// record counts a denial by the person asked (or by nobody answering).
func (d DenialTracking) record(ctx context.Context, c *Call) {
	d.Telemetry.Denial(ctx, c.metricTool(), "user")
	if _, err := d.Store.RecordDenial(context.WithoutCancel(ctx), c.Session.ID, store.PersonDenials, d.Now(), d.Window); err != nil {
		d.Logger.Error("recording a denial failed", "session_id", c.Session.ID, "error", err)
	}
}
