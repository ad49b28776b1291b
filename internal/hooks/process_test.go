package hooks

import (
	"strings"
	"testing"
)

func TestParallelHooksWithConflictingDecisions(t *testing.T) {
	decide := func(d string) string {
		return `echo '{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"` + d + `","permissionDecisionReason":"` + d + ` by hook"}}'`
	}
	cases := []struct {
		decisions []string
		want      Decision
	}{
		{[]string{"allow", "deny"}, Deny},
		{[]string{"deny", "allow", "ask"}, Deny},
		{[]string{"allow", "ask"}, Ask},
		{[]string{"ask", "defer", "allow"}, Defer},
		{[]string{"allow", "allow"}, Allow},
		{[]string{"allow", "none"}, Allow},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.decisions, "+"), func(t *testing.T) {
			f := newFixture(t)
			var hooks []string
			for i, d := range c.decisions {
				body := "exit 0"
				if d != "none" {
					body = decide(d)
				}
				hooks = append(hooks, command(f.script("h"+string(rune('a'+i))+".sh", body)))
			}
			o := pre(t, f.runner(settings(PreToolUse, "Bash", hooks...)), f.bash("ls"))
			if o.Decision != c.want {
				t.Fatalf("decision %s, want %s", o.Decision, c.want)
			}
			if want := c.want.String() + " by hook"; !strings.HasPrefix(o.Reason, want) {
				t.Errorf("reason %q, want the winning hooks' reason %q", o.Reason, want)
			}
			if len(o.Reports) != len(c.decisions) {
				t.Errorf("%d reports, want %d", len(o.Reports), len(c.decisions))
			}
		})
	}
}

func TestMatchingHooksRunInParallel(t *testing.T) {
	// Each hook announces itself, then waits for the other: run one after
	// the other, the first would give up waiting and fail.
	f := newFixture(t)
	rendezvous := func(me, other string) string {
		return `touch "` + f.path(me) + `"; for i in $(seq 1 500); do [ -e "` + f.path(other) + `" ] && exit 0; sleep 0.02; done; echo "never saw ` + other + `" >&2; exit 1`
	}
	r := f.runner(settings(PreToolUse, "Bash",
		command(f.script("a.sh", rendezvous("a", "b"))),
		command(f.script("b.sh", rendezvous("b", "a")))))
	o := pre(t, r, f.bash("ls"))
	for _, rep := range o.Reports {
		if rep.Status != StatusOK {
			t.Errorf("%s: %s %q", rep.Hook, rep.Status, rep.Message)
		}
	}
}

func TestConflictingRewritesBlock(t *testing.T) {
	f := newFixture(t)
	rewrite := func(cmd string) string {
		return `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"` + cmd + `"}}}'`
	}
	r := f.runner(settings(PreToolUse, "Bash", command(f.script("a.sh", rewrite("ls -a"))), command(f.script("b.sh", rewrite("ls -l")))))
	o := pre(t, r, f.bash("ls"))
	if o.Decision != Deny || o.UpdatedInput != nil || !strings.Contains(o.Reason, "rewrote the input differently") {
		t.Errorf("decision %s %q input %s", o.Decision, o.Reason, o.UpdatedInput)
	}

	same := f.runner(settings(PreToolUse, "Bash", command(f.script("c.sh", rewrite("ls -a"))), command(f.script("d.sh", `echo '{"hookSpecificOutput":{"updatedInput":{ "command" : "ls -a" }}}'`))))
	o = pre(t, same, f.bash("ls"))
	if o.Decision != Allow || string(o.UpdatedInput) != `{"command":"ls -a"}` {
		t.Errorf("agreeing rewrites: decision %s input %s", o.Decision, o.UpdatedInput)
	}
}

func TestDenyIgnoresRewrites(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PreToolUse, "Bash",
		command(f.script("a.sh", `echo '{"hookSpecificOutput":{"permissionDecision":"allow","updatedInput":{"command":"ls -a"}}}'`)),
		command(f.script("b.sh", `echo no >&2; exit 2`))))
	o := pre(t, r, f.bash("ls"))
	if o.Decision != Deny || o.UpdatedInput != nil {
		t.Errorf("decision %s input %s", o.Decision, o.UpdatedInput)
	}
}

func TestTimeoutKillsTheProcessGroup(t *testing.T) {
	for _, failOpen := range []bool{false, true} {
		name := "fail closed"
		if failOpen {
			name = "fail open"
		}
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			// The hook leaves a child behind and then hangs.
			hook := f.script("slow.sh", `sleep 300 & echo $! > "`+f.path("child.pid")+`"; sleep 300`)
			r := f.runner(settings(PreToolUse, "Bash", command(hook, `,"timeout":0.5`)), func(o *Options) { o.FailOpen = failOpen })
			o := pre(t, r, f.bash("ls"))
			waitDead(t, readPid(t, f, "child.pid"))
			rep := o.Reports[0]
			if rep.Status != StatusTimedOut || rep.ExitCode != -1 || !strings.Contains(rep.Message, "timed out after 500ms") {
				t.Errorf("report %s exit %d %q", rep.Status, rep.ExitCode, rep.Message)
			}
			want := Deny
			if failOpen {
				want = None
			}
			if o.Decision != want {
				t.Errorf("decision %s, want %s", o.Decision, want)
			}
			if !failOpen && !strings.Contains(o.Reason, "failed") {
				t.Errorf("reason %q", o.Reason)
			}
		})
	}
}

func TestDefaultTimeoutApplies(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PreToolUse, "Bash", command(f.script("slow.sh", `sleep 300`))), func(o *Options) { o.DefaultTimeout = 300_000_000 })
	o := pre(t, r, f.bash("ls"))
	if rep := o.Reports[0]; rep.Status != StatusTimedOut || !strings.Contains(rep.Message, "300ms") {
		t.Errorf("report %s %q", rep.Status, rep.Message)
	}
}

func TestLeftoversAreKilledWhenTheHookExits(t *testing.T) {
	f := newFixture(t)
	hook := f.script("leave.sh", `sleep 300 > /dev/null 2>&1 & echo $! > "`+f.path("child.pid")+`"; exit 0`)
	o := pre(t, f.runner(settings(PreToolUse, "Bash", command(hook))), f.bash("ls"))
	if o.Reports[0].Status != StatusOK {
		t.Fatalf("report %+v", o.Reports[0])
	}
	waitDead(t, readPid(t, f, "child.pid"))
}

func TestCrashingHook(t *testing.T) {
	cases := map[string]string{
		"killed by a signal": `kill -9 $$`,
		"missing script":     `/nonexistent/hook.sh`,
		"not executable":     `"` + "SCRIPTS" + `/plain.txt"`,
	}
	for name, cmd := range cases {
		t.Run(name, func(t *testing.T) {
			f := newFixture(t)
			writeFile(t, f.path("plain.txt"), "echo hi\n", 0o644)
			cmd := strings.ReplaceAll(cmd, "SCRIPTS", f.scripts)
			closed := pre(t, f.runner(settings(PreToolUse, "Bash", command(cmd))), f.bash("ls"))
			if closed.Decision != Deny || closed.Reports[0].Status != StatusFailed {
				t.Errorf("fail closed: decision %s status %s %q", closed.Decision, closed.Reports[0].Status, closed.Reports[0].Message)
			}
			open := pre(t, f.runner(settings(PreToolUse, "Bash", command(cmd)), func(o *Options) { o.FailOpen = true }), f.bash("ls"))
			if open.Decision != None || open.Reports[0].Status != StatusFailed {
				t.Errorf("fail open: decision %s status %s", open.Decision, open.Reports[0].Status)
			}
		})
	}
}

func TestFailureDoesNotBlockOtherEvents(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PostToolUse, "", command(`kill -9 $$`)))
	o, err := r.PostToolUse(ctx(t), f.bash("ls"))
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Feedback) != 0 || o.Reports[0].Status != StatusFailed {
		t.Errorf("feedback %q status %s", o.Feedback, o.Reports[0].Status)
	}
}

func TestOutputCap(t *testing.T) {
	f := newFixture(t)
	hook := f.script("loud.sh", `head -c 2000000 /dev/zero; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
	r := f.runner(settings(PreToolUse, "Bash", command(hook)), func(o *Options) { o.MaxOutputBytes = 64 << 10 })
	o := pre(t, r, f.bash("ls"))
	if rep := o.Reports[0]; rep.Status != StatusFailed || !strings.Contains(rep.Message, "output passed 65536 bytes") {
		t.Errorf("report %s %q", rep.Status, rep.Message)
	}
	if o.Decision != Deny {
		t.Errorf("decision %s, want deny (fail closed)", o.Decision)
	}
}

func TestEndlessOutputIsKilled(t *testing.T) {
	f := newFixture(t)
	r := f.runner(settings(PreToolUse, "Bash", command(`yes`)), func(o *Options) { o.MaxOutputBytes = 4096 })
	o := pre(t, r, f.bash("ls"))
	if rep := o.Reports[0]; rep.Status != StatusFailed {
		t.Errorf("report %s %q", rep.Status, rep.Message)
	}
}

func TestCancelledContextStopsHooks(t *testing.T) {
	f := newFixture(t)
	hook := f.script("slow.sh", `sleep 300 & echo $! > "`+f.path("child.pid")+`"; sleep 300`)
	r := f.runner(settings(PreToolUse, "Bash", command(hook)))
	c, cancel := contextWithCancel(t)
	done := make(chan PreOutcome)
	go func() {
		o, _ := r.PreToolUse(c, f.bash("ls"))
		done <- o
	}()
	pid := readPid(t, f, "child.pid")
	cancel()
	o := <-done
	waitDead(t, pid)
	if o.Decision != Deny || o.Reports[0].Status != StatusFailed {
		t.Errorf("decision %s status %s", o.Decision, o.Reports[0].Status)
	}
}
