package policy

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The texts Claude Code 2.1.332 gives for a Bash call that asks and is
// not granted (recorded with claude -p; WS stands for the workspace).
func TestBashMessage(t *testing.T) {
	ws, _ := filepath.EvalSymlinks(t.TempDir())
	os.MkdirAll(filepath.Join(ws, "sub"), 0o755)
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a"), 0o644)
	inside := " The path is inside the working directories for this session ('WS'), and Claude Code asks before a shell command creates, changes or removes files there."
	outside := " The path is outside the working directories for this session ('WS'). Allowing runs the command as written."
	cases := []struct {
		cmd, mode string
		rules     SessionRules
		want      string
	}{
		{cmd: "curl -s http://127.0.0.1:9/", want: "This command requires approval"},
		{cmd: "nice -n 5 cat a.txt", want: "This command requires approval"},
		{cmd: "FOO=1 cat a.txt", want: "This command requires approval"},
		{cmd: "rm a.txt", want: "rm in 'WS/a.txt' needs approval." + inside},
		{cmd: "timeout 5 rm a.txt", want: "rm in 'WS/a.txt' needs approval." + inside},
		{cmd: "touch made.txt", want: "touch in 'WS/made.txt' needs approval." + inside},
		{cmd: "mv a.txt b.txt", want: "mv in 'WS/a.txt' needs approval." + inside},
		{cmd: "rm /tmp/nope", want: "rm in '/tmp/nope' needs approval." + outside},
		{cmd: "cp a.txt /tmp/", want: "cp in '/tmp/' needs approval." + outside},
		{cmd: "mkdir /tmp/a /tmp/b", want: "mkdir in '/tmp/a' needs approval." + outside},
		{cmd: "echo x > out.txt", want: "Output redirection to 'WS/out.txt' needs approval." + inside},
		{cmd: "echo x 2> err.txt", want: "Output redirection to 'WS/err.txt' needs approval." + inside},
		{cmd: "echo x >> /tmp/zz.txt", want: "Output redirection to '/tmp/zz.txt' needs approval." + outside},
		{cmd: "ls && rm a.txt", want: "rm in 'WS/a.txt' needs approval." + inside},
		{cmd: "echo a.txt | xargs cat", want: "This Bash command contains multiple operations. The following part requires approval: xargs cat"},
		{cmd: "echo hi | tee f2", want: "This Bash command contains multiple operations. The following part requires approval: tee f2"},
		{cmd: "curl x && wget y", want: "This Bash command contains multiple operations. The following parts require approval: curl x, wget y"},
		{cmd: "echo x > o.txt && curl x", want: "This Bash command contains multiple operations. The following parts require approval: echo x, curl x"},
		{cmd: "echo $(rm a.txt)", want: "A nested command in this command can't be checked before it runs"},
		{cmd: "ls `pwd`", want: "A nested command in this command can't be checked before it runs"},
		{cmd: "rm -rf /", want: "Dangerous rm operation detected: '/'\n\nThis command would remove a critical system directory. This requires explicit approval and cannot be auto-allowed by permission rules."},
		{cmd: "rm -rf /tmp", want: "Dangerous rm operation detected: '/tmp'\n\n" + msgCriticalSystem},
		{cmd: "rm -rf ~", want: "Dangerous rm operation detected: '/home/agent'\n\n" + msgCriticalSystem},
		{cmd: "rm -r ..", want: "Dangerous rm operation detected: '" + filepath.Dir(ws) + "'\n\n" + msgCriticalWork},
		{cmd: "rm -rf .", want: "Dangerous rm operation detected: 'WS'\n\nThis command would remove a workspace directory (the working directory, an additional working directory, or one of their parent directories). This requires explicit approval and cannot be auto-allowed by permission rules."},
		{cmd: "cat /etc/hostname", want: "cat in '/etc/hostname' was blocked. For security, Claude Code may only concatenate files from the allowed working directories for this session: 'WS'."},
		{cmd: "cd sub && git status --short", want: msgCdGit},
		{cmd: "cd / && ls", want: "cd in '/' was blocked. For security, Claude Code may only change directories to the allowed working directories for this session: 'WS'."},
		{cmd: "cd /tmp; ls", want: "cd in '/tmp' was blocked. For security, Claude Code may only change directories to the allowed working directories for this session: 'WS'."},
		{cmd: "git push", rules: SessionRules{CLIArg: Settings{Ask: []string{"Bash(git push:*)"}}}, want: "Claude requested permissions to use Bash, but you haven't granted it yet."},
		{cmd: "ls && cat a.txt", rules: SessionRules{CLIArg: Settings{Ask: []string{"Bash(cat *)"}}}, want: "Claude requested permissions to use Bash, but you haven't granted it yet."},
		{cmd: "LANG=C touch t.txt", mode: "acceptEdits", want: "This command requires approval"},
		{cmd: "rm /tmp/x", mode: "acceptEdits", want: "rm in '/tmp/x' needs approval." + outside},
		{cmd: "ls && curl x", mode: "acceptEdits", want: "This Bash command contains multiple operations. The following part requires approval: curl x"},
	}
	e, err := NewEngine(Options{Home: "/home/agent"})
	if err != nil {
		t.Fatal(err)
	}
	// Plan mode denies what it does not run, with the text of the
	// auto-mode check; the dontAsk and deny-rule texts.
	for _, tc := range []struct {
		cmd, mode string
		rules     SessionRules
		want      string
	}{
		{cmd: "rm a.txt", mode: "plan", want: msgPlan},
		{cmd: "curl x", mode: "plan", want: msgPlan},
		{cmd: "touch x.txt", mode: "dontAsk", want: fmt.Sprintf(msgDontAsk, "Bash")},
		{cmd: "echo a | rm a.txt", rules: denyRules("Bash(rm:*)"), want: "Permission to use Bash with command rm a.txt has been denied."},
		{cmd: "cat secret/k.txt", rules: denyRules("Read(./secret/**)"), want: "Permission to use Bash with command cat secret/k.txt has been denied."},
	} {
		os.MkdirAll(filepath.Join(ws, "secret"), 0o755)
		d := runDecide(t, e, ws, decideCase{name: tc.cmd + tc.mode, tool: "Bash", mode: tc.mode, rules: tc.rules, args: bashCmd(tc.cmd)})
		if d.Behavior != Deny || d.Message != tc.want {
			t.Errorf("%s (%s): %v %q, want deny %q", tc.cmd, tc.mode, d.Behavior, d.Message, tc.want)
		}
	}
	for _, tc := range cases {
		d := runDecide(t, e, ws, decideCase{name: tc.cmd + tc.mode, tool: "Bash", mode: tc.mode, rules: tc.rules, args: bashCmd(tc.cmd)})
		if d.Behavior != Ask {
			t.Errorf("%s (%s): %v, want ask", tc.cmd, tc.mode, d.Behavior)
			continue
		}
		if want := strings.ReplaceAll(tc.want, "WS", ws); d.Message != want {
			t.Errorf("%s (%s):\n got %q\nwant %q", tc.cmd, tc.mode, d.Message, want)
		}
	}
}
