package notify_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/notify"
	"github.com/toold/toold/internal/notify/notifytest"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool/tooltest"
	"github.com/toold/toold/internal/tools/bash"
	"github.com/toold/toold/internal/tools/shells"
)

// How Claude Code frames what it puts into the conversation, in every
// recorded case: between tool calls one system message, the notifications
// that came together each with the preamble, a blank line between them;
// once its turn has ended, each a user message of its own inside a
// <system-reminder>.
func TestRecordedFraming(t *testing.T) {
	rec := notifytest.Load(t)
	n := 0
	for _, c := range rec.Cases {
		for _, m := range c.Messages {
			one := notifytest.Case{Messages: []notifytest.Message{m}}
			els := one.Elements()
			var want string
			switch m.Role {
			case "system":
				framed := make([]string, len(els))
				for i, e := range els {
					framed[i] = notify.Framed(e)
				}
				want = strings.Join(framed, "\n\n")
			case "user":
				if len(els) != 1 {
					t.Fatalf("%s: an idle turn with %d notifications", c.Case, len(els))
				}
				want = notify.IdleTurn(els[0])
			}
			if strings.TrimSuffix(m.Text, "\n") != want {
				t.Errorf("%s: recorded\n%q\nframed\n%q", c.Case, m.Text, want)
			}
			n++
		}
	}
	if n < 20 {
		t.Fatalf("only %d messages recorded", n)
	}
}

// The recorded background commands that ended by themselves, run through
// toold's Bash with the registry's OnEnd posting ShellEnded: the same
// results and notifications, but for the random task ids and the output
// file (toold's handle). Two recorded commands are left out: one of 30 s,
// and kill -9 $$, whose exit status Claude Code's own wrapper shell gives
// (1) where bash's is 137.
func TestRecordedShellEnds(t *testing.T) {
	rec := notifytest.Load(t)
	skip := map[string]bool{"sleep 30": true, "kill -9 $$": true}
	for _, name := range []string{"p-bg-ok", "q-bg-mix", "r-specialchars", "s-bg-long", "q-bg-timeout"} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := rec.Case(t, name)
			reg, err := shells.New(shells.Options{Dir: t.TempDir()})
			if err != nil {
				t.Fatal(err)
			}
			defer reg.Close()
			st := memstore.New()
			env, _, _ := tooltest.Env(t)
			if err := st.CreateSession(context.Background(), &store.Session{ID: env.SessionID}); err != nil {
				t.Fatal(err)
			}
			reg.OnEnd(notify.New(st, nil).ShellEnded)
			b := bash.New(bash.Options{Shells: reg})
			recorded := map[string]bool{}
			ran := 0
			for _, call := range c.CallsOf("Bash") {
				cmd, _ := call.Input["command"].(string)
				bg, _ := call.Input["run_in_background"].(bool)
				_, timed := call.Input["timeout"]
				if skip[cmd] || call.IsError || !bg && !timed {
					continue
				}
				env.ToolUseID = call.ToolUseID
				raw, _ := json.Marshal(call.Input)
				inv, err := b.Parse(raw)
				if err != nil {
					t.Fatal(err)
				}
				res, err := inv.Run(context.Background(), env)
				if err != nil {
					t.Fatal(err)
				}
				if bg && notifytest.Normal(tooltest.Text(res)) != notifytest.Normal(call.Result) {
					t.Errorf("result\n%s\nrecorded\n%s", tooltest.Text(res), call.Result)
				}
				id := res.Meta["task_id"].(string)
				if done, err := reg.Done(env.SessionID, id); err == nil {
					<-done
				}
				recorded[call.ToolUseID] = true
				ran++
			}
			var want []string
			for _, e := range c.Elements() {
				for id := range recorded {
					if strings.Contains(e, "<tool-use-id>"+id+"</tool-use-id>") {
						want = append(want, notifytest.Normal(e))
					}
				}
			}
			if len(want) != ran || ran == 0 {
				t.Fatalf("%d commands run, %d of their notifications recorded", ran, len(want))
			}
			var got []string
			for len(got) < ran {
				p, err := st.ReadNotifications(context.Background(), env.SessionID, int64(len(got)), 0, time.Minute)
				if err != nil || len(p.Notifications) == 0 {
					t.Fatalf("%d of %d notifications: %v", len(got), ran, err)
				}
				for _, n := range p.Notifications {
					if n.Kind != store.NoteShellEnded || n.ToolUseID == "" || !recorded[n.ToolUseID] {
						t.Fatalf("notification %+v", n)
					}
					got = append(got, notifytest.Normal(n.Text))
				}
			}
			slices.Sort(got)
			slices.Sort(want)
			if strings.Join(got, "\n\n") != strings.Join(want, "\n\n") {
				t.Errorf("notifications\n%s\nrecorded\n%s", strings.Join(got, "\n\n"), strings.Join(want, "\n\n"))
			}
		})
	}
}
