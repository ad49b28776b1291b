package e2e

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/toold/toold/internal/store/redistest"
)

// chromiumForConsole finds Debian's chromium and the console test's npm
// packages (make deps installs both). Without them the test is skipped,
// with the reason, except in CI, where it must run.
func chromiumForConsole(t *testing.T) (chromium, dir string) {
	t.Helper()
	dir = filepath.Join(repoRoot(t), "test", "console")
	missing := ""
	chromium, err := exec.LookPath("chromium")
	if err != nil {
		missing = "Debian's chromium (apt-get install chromium)"
	} else if _, err := os.Stat(filepath.Join(dir, "node_modules", "playwright-core", "package.json")); err != nil {
		missing = "playwright-core (npm ci --prefix test/console)"
	} else if _, err := exec.LookPath("node"); err != nil {
		missing = "node"
	}
	if missing != "" {
		if os.Getenv("CI") == "true" {
			t.Fatalf("the console's browser test needs %s; make deps installs it", missing)
		}
		t.Skipf("the console's browser test needs %s; make deps installs it", missing)
	}
	return chromium, dir
}

// The console in a real browser against two replicas and one Redis: an ask
// raised by an Execute on replica A shows up on replica B's console, is
// approved in the page and the Execute finishes; a deny with a message
// reaches the model's tool_result; a second tenant's session never
// appears. It leaves a screenshot at $TOOLD_CONSOLE_SCREENSHOT when set
// (docs/console.png is made so).
func TestConsoleInBrowser(t *testing.T) {
	chromium, dir := chromiumForConsole(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	url := "redis://" + redistest.Start(t) + "/0"
	tokens := writeTokens(t, map[string]string{"team-a": "console-token-a", "team-b": "console-token-b"})
	replica := func(uid int) (*daemon, string) {
		web := freeAddr(t)
		d := startTooldAs(t, uid, "--redis-url", url, "--auth", "token", "--auth-tokens", tokens, "--console-listen", web)
		return d, web
	}
	// As root, replica A, which runs the calls and records them, is a
	// non-root toold (uid 10001), as in the image.
	uidA := -1
	if os.Getuid() == 0 {
		uidA = 10001
		passThrough(t, filepath.Dir(tokens))
		if err := os.Chown(tokens, uidA, uidA); err != nil {
			t.Fatal(err)
		}
	}
	a, _ := replica(uidA)
	_, webB := replica(-1)
	waitListening(t, webB)

	session := func(token string) string {
		out, err := sh(t, ctx, `grpcurl -plaintext -H 'authorization: Bearer `+token+`' -d '{"mode": "PERMISSION_MODE_DEFAULT"}' `+a.addr+` toold.v1.SessionService/CreateSession | sed -n 's/^ *"id": "\([a-z2-7]*\)".*/\1/p'`)
		if err != nil || len(strings.TrimSpace(out)) != 26 {
			t.Fatalf("CreateSession: %v %q", err, out)
		}
		return strings.TrimSpace(out)
	}
	sessA, sessB := session("console-token-a"), session("console-token-b")
	// team-b has a request waiting too: something the console could leak.
	bOut := filepath.Join(t.TempDir(), "b.out")
	bCtx, bCancel := context.WithCancel(ctx)
	bExec := exec.CommandContext(bCtx, "bash", "-c", `grpcurl -plaintext -H 'authorization: Bearer console-token-b' -d '{"session_id": "`+sessB+`", "calls": [{"tool_use_id": "toolu_b", "name": "Bash", "input": {"command": "touch secret-of-b"}}]}' `+a.addr+` toold.v1.ToolService/Execute > `+bOut+` 2>&1`)
	bExec.Env = append(os.Environ(), "PATH="+filepath.Dir(grpcurl(t))+":"+os.Getenv("PATH"))
	if err := bExec.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { bCancel(); bExec.Wait() }()
	waitFor(t, func() bool { b, _ := os.ReadFile(bOut); return strings.Contains(string(b), `"requestId"`) }, "team-b's request")

	shot := os.Getenv("TOOLD_CONSOLE_SCREENSHOT")
	if shot == "" {
		shot = filepath.Join(t.TempDir(), "console.png")
	} else if !filepath.IsAbs(shot) {
		shot = filepath.Join(repoRoot(t), shot)
	}
	outDir := t.TempDir()
	node := exec.CommandContext(ctx, "node", "console.test.mjs")
	node.Dir = dir
	node.Env = append(os.Environ(),
		"CHROMIUM="+chromium, "CONSOLE_URL=http://"+webB, "GRPC_ADDR="+a.addr, "GRPCURL="+grpcurl(t),
		"TOKEN_A=console-token-a", "SESSION_A="+sessA, "SESSION_B="+sessB, "OUT_DIR="+outDir, "SCREENSHOT="+shot)
	out, err := node.CombinedOutput()
	t.Logf("browser:\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v", err)
	}

	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(outDir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	approved := read("toolu_console_1.out")
	mustContain(t, approved, `"requestId": "perm_`, `"text": "approved-ran`)
	if strings.Contains(approved, `"isError": true`) {
		t.Fatalf("the approved call failed:\n%s", approved)
	}
	denied := read("toolu_console_2.out")
	mustContain(t, denied, `"requestId": "perm_`, "ERROR_KIND_PERMISSION_DENIED", "Not on main: open a pull request instead.")
	if st, err := os.Stat(shot); err != nil || st.Size() < 10_000 {
		t.Fatalf("screenshot %s: %v", shot, err)
	}
	// team-b's call still waits: the console answered nothing of it.
	if b, _ := os.ReadFile(bOut); strings.Contains(string(b), `"result"`) {
		t.Fatalf("team-b's call was answered:\n%s", b)
	}
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	waitFor(t, func() bool {
		out, err := exec.Command("bash", "-c", "exec 3<>/dev/tcp/"+strings.Replace(addr, ":", "/", 1)).CombinedOutput()
		return err == nil && len(out) == 0
	}, "the console on "+addr)
}

func waitFor(t *testing.T, ok func() bool, what string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 30 s", what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
