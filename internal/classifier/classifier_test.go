package classifier

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/store"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func TestVerdicts(t *testing.T) {
	for _, tc := range []struct {
		name     string
		b        *fakeBackend
		want     policy.Behavior
		inReason string
	}{
		{"allow", verdict(vAllow, "runs the tests"), policy.Allow, "runs the tests"},
		{"deny", verdict(vDeny, "curl reaches the network"), policy.Deny, "curl reaches the network"},
		{"deny without a reason", verdict(vDeny, ""), policy.Deny, "Blocked by classifier."},
		{"ask", verdict(vAsk, "unsure"), policy.Ask, "unsure"},
		{"no verdict", verdict(tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_UNSPECIFIED, "hm"), policy.Ask, "no verdict"},
		{"unknown verdict", verdict(tooldv1.ClassifierVerdict(42), "hm"), policy.Ask, "no verdict"},
		{"failed", &fakeBackend{err: errDead}, policy.Ask, "connection refused"},
		{"timed out", &fakeBackend{block: true}, policy.Ask, "no answer within"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newFixture(t, tc.b, func(o *Options) { o.Timeout = 50 * time.Millisecond })
			got := f.k.Classify(context.Background(), bashCall("npm test"), needsApproval)
			if got.Behavior != tc.want || got.Source != Source || !strings.Contains(got.Reason, tc.inReason) {
				t.Fatalf("got %+v", got)
			}
			if got.Behavior == policy.Ask && (len(got.Suggestions) == 0 || !strings.Contains(got.Reason, "Bash needs approval")) {
				t.Fatalf("an ask to a person lost what the person needs: %+v", got)
			}
			if got.Behavior == policy.Deny && got.Message != "Permission for this action was denied by the Claude Code auto mode classifier. Reason: "+tc.inReason {
				t.Fatalf("the model reads %q", got.Message)
			}
		})
	}
}

// A cancelled call is not reported as the classifier's timeout.
func TestCancelledCallIsNoTimeout(t *testing.T) {
	f := newFixture(t, &fakeBackend{block: true})
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	got := f.k.Classify(ctx, bashCall("npm test"), needsApproval)
	if got.Behavior != policy.Ask || strings.Contains(got.Reason, "no answer within") {
		t.Fatalf("got %+v", got)
	}
}

// The brake: after Limit denials by the classifier in the window it is
// not asked and a person decides; once the window moves past them, it is
// asked again.
func TestDenialTrackingHandsTheSessionToAPerson(t *testing.T) {
	b := verdict(vDeny, "curl reaches the network")
	f := newFixture(t, b, func(o *Options) { o.Limit = 3; o.Window = 5 * time.Minute })
	ctx := context.Background()
	for i := range 3 {
		if got := f.k.Classify(ctx, bashCall("curl x"), needsApproval); got.Behavior != policy.Deny {
			t.Fatalf("call %d: %+v", i, got)
		}
		f.now = f.now.Add(time.Second)
	}
	got := f.k.Classify(ctx, bashCall("curl x"), needsApproval)
	if got.Behavior != policy.Ask || got.Source != "denialTracking" || !strings.Contains(got.Reason, "the classifier denied 3 of its calls") || b.calls() != 3 {
		t.Fatalf("fourth call: %+v (classifier asked %d times)", got, b.calls())
	}
	// The denials are counted as the classifier's, not as a person's.
	if n, _ := f.st.CountDenials(ctx, "s1", store.PersonDenials, f.now, 5*time.Minute); n != 0 {
		t.Fatalf("the classifier's denials count as a person's: %d", n)
	}
	// Just before the first denial leaves the window: still paused.
	first := f.now.Add(-3 * time.Second)
	f.now = first.Add(5*time.Minute - time.Millisecond)
	if got := f.k.Classify(ctx, bashCall("curl x"), needsApproval); got.Behavior != policy.Ask || b.calls() != 3 {
		t.Fatalf("with three denials in the window: %+v (classifier asked %d times)", got, b.calls())
	}
	// Once it has left, two remain: the classifier answers again.
	f.now = first.Add(5 * time.Minute)
	if got := f.k.Classify(ctx, bashCall("curl x"), needsApproval); got.Behavior != policy.Deny || b.calls() != 4 {
		t.Fatalf("after the window: %+v", got)
	}
}

// A person's denials (and requests nobody answered) do not count towards
// the brake, however many: the classifier keeps answering.
func TestPersonDenialsDoNotTripTheBrake(t *testing.T) {
	b := verdict(vAllow, "ok")
	f := newFixture(t, b, func(o *Options) { o.Limit = 2 })
	for range 5 {
		if _, err := f.st.RecordDenial(context.Background(), "s1", store.PersonDenials, f.now, 5*time.Minute); err != nil {
			t.Fatal(err)
		}
	}
	if got := f.k.Classify(context.Background(), bashCall("npm test"), needsApproval); got.Behavior != policy.Allow || b.calls() != 1 {
		t.Fatalf("got %+v", got)
	}
}

// Allowed calls and asks passed on do not reset the brake or add to it:
// it counts the classifier's denials in the window, nothing else.
func TestOnlyClassifierDenialsCount(t *testing.T) {
	b := verdict(vDeny, "no")
	f := newFixture(t, b, func(o *Options) { o.Limit = 2 })
	ctx := context.Background()
	f.k.Classify(ctx, bashCall("curl x"), needsApproval)
	for _, v := range []tooldv1.ClassifierVerdict{vAllow, vAsk} {
		b.resp.Verdict = v
		f.k.Classify(ctx, bashCall("npm test"), needsApproval)
	}
	if n, _ := f.st.CountDenials(ctx, "s1", store.ClassifierDenials, f.now, 5*time.Minute); n != 1 {
		t.Fatalf("classifier denials = %d, want 1", n)
	}
	b.resp.Verdict = vDeny
	f.k.Classify(ctx, bashCall("curl x"), needsApproval)
	if got := f.k.Classify(ctx, bashCall("curl x"), needsApproval); got.Source != "denialTracking" {
		t.Fatalf("after two denials: %+v", got)
	}
}

// Without the denial count, the classifier is not asked: a person decides.
func TestUnreadableDenialsAskAPerson(t *testing.T) {
	b := verdict(vAllow, "ok")
	f := newFixture(t, b)
	c := bashCall("npm test")
	c.Session.ID = "gone"
	if got := f.k.Classify(context.Background(), c, needsApproval); got.Behavior != policy.Ask || b.calls() != 0 {
		t.Fatalf("got %+v", got)
	}
}

func TestRequestCarriesTheDeclaredInputAndRecentDecisions(t *testing.T) {
	b := verdict(vAllow, "ok")
	f := newFixture(t, b)
	ctx := context.Background()
	f.k.Observe(ctx, bashCall("ls"), policy.Decision{Behavior: policy.Allow, Source: "readOnly"})
	other := bashCall("cat x")
	other.Session.Mode = "default"
	f.k.Observe(ctx, other, policy.Decision{Behavior: policy.Allow, Source: "readOnly"})
	f.k.Answered(ctx, bashCall("rm x"), false)
	f.k.Classify(ctx, bashCall("npm test"), needsApproval)
	req := b.got[0]
	in := req.GetInput().AsMap()
	if in["command"] != "npm test" || in["cwd"] != "/ws/s1" || len(in) != 2 {
		t.Fatalf("input %v", in)
	}
	if req.GetSessionId() != "s1" || req.GetToolName() != "Bash" || req.GetAskReason() != "Bash needs approval" {
		t.Fatalf("request %v", req)
	}
	rd := req.GetRecentDecisions()
	if len(rd) != 2 || rd[0].GetBehavior() != "allow" || rd[0].GetSource() != "readOnly" || rd[0].GetToolName() != "Bash" ||
		rd[1].GetBehavior() != "deny" || rd[1].GetSource() != "person" {
		t.Fatalf("recent %v", rd)
	}
}
