package conformance

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// childPath is the PATH the oracle gives claude, toold and hooks alike.
const childPath = "/usr/local/bin:/usr/bin:/bin"

func repoRoot() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", ".."))
}

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// binary builds toold and toold-sandbox beside it once per run, as
// test/e2e does.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toold-conformance-bin")
		if err != nil {
			buildErr = err
			return
		}
		if err := os.Chmod(dir, 0o755); err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "toold")
		for _, b := range [][2]string{{binPath, "./cmd/toold"}, {filepath.Join(dir, "toold-sandbox"), "./cmd/toold-sandbox"}} {
			cmd := exec.Command("go", "build", "-o", b[0], b[1])
			cmd.Dir = repoRoot()
			if out, err := cmd.CombinedOutput(); err != nil {
				buildErr = fmt.Errorf("go build %s: %v\n%s", b[1], err, out)
				return
			}
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// daemon is one toold started as the oracle starts it: its own port,
// --workspace-root BASE/ws, PATH and HOME as the oracle sets them.
type daemon struct {
	cmd     *exec.Cmd
	logs    *syncBuffer
	done    chan struct{}
	conn    *grpc.ClientConn
	tools   tooldv1.ToolServiceClient
	session tooldv1.SessionServiceClient
}

func startToold(t *testing.T, base string, extra ...string) (*daemon, error) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	root := filepath.Join(base, "ws")
	home := filepath.Join(root, ".home")
	if err := os.MkdirAll(home, 0o755); err != nil {
		return nil, err
	}
	args := append([]string{"--listen", addr, "--workspace-root", root, "--log-level", "warn"}, extra...)
	d := &daemon{logs: &syncBuffer{}, done: make(chan struct{})}
	d.cmd = exec.Command(binary(t), args...)
	d.cmd.Env = []string{"PATH=" + childPath, "HOME=" + home, "LANG=C.UTF-8"}
	d.cmd.Stdout, d.cmd.Stderr = d.logs, d.logs
	if err := d.cmd.Start(); err != nil {
		return nil, err
	}
	go func() { d.cmd.Wait(); close(d.done) }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err == nil {
			c.Close()
			break
		}
		select {
		case <-d.done:
			return nil, fmt.Errorf("toold %v exited: %s", args, d.logs)
		default:
		}
		if time.Now().After(deadline) {
			d.stop()
			return nil, fmt.Errorf("toold did not listen on %s: %v\n%s", addr, err, d.logs)
		}
		time.Sleep(20 * time.Millisecond)
	}
	d.conn, err = grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		d.stop()
		return nil, err
	}
	d.tools = tooldv1.NewToolServiceClient(d.conn)
	d.session = tooldv1.NewSessionServiceClient(d.conn)
	return d, nil
}

func (d *daemon) stop() {
	if d.conn != nil {
		d.conn.Close()
	}
	d.cmd.Process.Kill()
	<-d.done
}

var modes = map[string]tooldv1.PermissionMode{
	"":                  tooldv1.PermissionMode_PERMISSION_MODE_DEFAULT,
	"default":           tooldv1.PermissionMode_PERMISSION_MODE_DEFAULT,
	"acceptEdits":       tooldv1.PermissionMode_PERMISSION_MODE_ACCEPT_EDITS,
	"plan":              tooldv1.PermissionMode_PERMISSION_MODE_PLAN,
	"dontAsk":           tooldv1.PermissionMode_PERMISSION_MODE_DONT_ASK,
	"bypassPermissions": tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS,
}

// outcome is toold's answer to one call: the normalised result and the
// permission decision as oracle.py's toold_decision reads it.
type outcome struct {
	result   *normResult
	decision string
}

// runCase runs one case as oracle.py's run_toold_case does: a session
// with the case's mode and rules, one Execute per turn, every permission
// request denied (with denyMessage, in host mode).
func runCase(ctx context.Context, d *daemon, c testCase, dd dirs, denyMessage string) (map[string]outcome, error) {
	mode, ok := modes[c.Mode]
	if !ok {
		return nil, fmt.Errorf("unknown mode %q", c.Mode)
	}
	perms := &tooldv1.Permissions{}
	for _, r := range c.Allow {
		perms.Allow = append(perms.Allow, dd.subst(r))
	}
	for _, r := range c.Deny {
		perms.Deny = append(perms.Deny, dd.subst(r))
	}
	for _, r := range c.Ask {
		perms.Ask = append(perms.Ask, dd.subst(r))
	}
	cs, err := d.session.CreateSession(ctx, &tooldv1.CreateSessionRequest{Workspace: dd.ws, Mode: mode, Permissions: perms})
	if err != nil {
		return nil, fmt.Errorf("CreateSession: %w", err)
	}
	sid := cs.GetSession().GetId()
	defer d.session.DeleteSession(context.WithoutCancel(ctx), &tooldv1.DeleteSessionRequest{SessionId: sid})
	out := map[string]outcome{}
	timeout := 300 * time.Second
	if c.Timeout > 0 {
		timeout = time.Duration(c.Timeout * float64(time.Second))
	}
	for _, turn := range c.Turns {
		req := &tooldv1.ExecuteRequest{SessionId: sid}
		for _, b := range turn {
			in := "{}"
			switch {
			case b.RawInput != nil:
				in = dd.subst(*b.RawInput)
			case len(b.Input) > 0:
				in = dd.subst(string(b.Input))
			}
			req.Calls = append(req.Calls, &tooldv1.ToolCall{ToolUseId: b.ID, Name: b.Name, InputJson: in})
		}
		if err := execute(ctx, d, sid, req, timeout, denyMessage, dd, out); err != nil {
			return out, err
		}
	}
	return out, nil
}

func execute(ctx context.Context, d *daemon, sid string, req *tooldv1.ExecuteRequest, timeout time.Duration, denyMessage string, dd dirs, out map[string]outcome) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	stream, err := d.tools.Execute(ctx, req)
	var first *tooldv1.ExecuteEvent
	if err == nil {
		first, err = stream.Recv()
	}
	if err != nil {
		return fmt.Errorf("Execute: %w", err)
	}
	asked := map[string]bool{}
	behavior := map[string]tooldv1.Behavior{}
	hookDenied := map[string]bool{}
	results := map[string]map[string]any{}
	var resolving sync.WaitGroup
	defer resolving.Wait()
	for {
		ev, err := first, error(nil)
		if ev == nil {
			ev, err = stream.Recv()
		}
		first = nil
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("Execute: %w", err)
		}
		id := ev.GetToolUseId()
		switch e := ev.GetEvent().(type) {
		case *tooldv1.ExecuteEvent_PermissionRequest:
			asked[id] = true
			rr := &tooldv1.ResolvePermissionRequest{SessionId: sid, RequestId: e.PermissionRequest.GetRequestId(),
				Decision: tooldv1.PermissionDecision_PERMISSION_DECISION_DENY, Message: denyMessage}
			resolving.Add(1)
			go func() {
				defer resolving.Done()
				d.session.ResolvePermission(ctx, rr)
			}()
		case *tooldv1.ExecuteEvent_Decision:
			behavior[id] = e.Decision.GetBehavior()
		case *tooldv1.ExecuteEvent_HookRun:
			h := e.HookRun
			if h.GetEvent() == "PreToolUse" && (h.GetDecision() == "deny" || h.GetStatus() == "blocked") {
				hookDenied[id] = true
			}
		case *tooldv1.ExecuteEvent_Result:
			results[id] = e.Result.GetToolResult().AsMap()
		}
	}
	for _, c := range req.Calls {
		id := c.GetToolUseId()
		dec := "n/a"
		switch b, ok := behavior[id]; {
		case asked[id]:
			dec = "ask"
		case ok && b == tooldv1.Behavior_BEHAVIOR_ALLOW:
			dec = "allow"
		case ok && b == tooldv1.Behavior_BEHAVIOR_DENY:
			dec = "deny"
		case ok && b == tooldv1.Behavior_BEHAVIOR_ASK:
			dec = "ask"
		case !ok && hookDenied[id]:
			dec = "deny"
		}
		o := outcome{decision: dec}
		if r, ok := results[id]; ok {
			o.result = normalise(roundTrip(r), dd)
		}
		out[id] = o
	}
	return nil
}

// roundTrip gives the Struct's map the types encoding/json would.
func roundTrip(m map[string]any) map[string]any {
	b, _ := json.Marshal(m)
	var out map[string]any
	_ = json.Unmarshal(b, &out)
	return out
}
