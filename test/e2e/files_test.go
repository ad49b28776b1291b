package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/store/redistest"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// client is a gRPC connection to one toold.
type client struct {
	sessions tooldv1.SessionServiceClient
	tools    tooldv1.ToolServiceClient
}

func dial(t *testing.T, addr string) *client {
	t.Helper()
	cc, err := grpc.NewClient(addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cc.Close() })
	return &client{tooldv1.NewSessionServiceClient(cc), tooldv1.NewToolServiceClient(cc)}
}

func (c *client) session(t *testing.T, ctx context.Context, workspace string) *tooldv1.Session {
	t.Helper()
	s, err := c.sessions.CreateSession(ctx, &tooldv1.CreateSessionRequest{Workspace: workspace, Mode: tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
	if err != nil {
		t.Fatal(err)
	}
	return s.GetSession()
}

// call runs one tool call and returns its result.
func (c *client) call(t *testing.T, ctx context.Context, sid, id, name string, input map[string]any) *tooldv1.ToolResult {
	t.Helper()
	in, err := structpb.NewStruct(input)
	if err != nil {
		t.Fatal(err)
	}
	stream, err := c.tools.Execute(ctx, &tooldv1.ExecuteRequest{SessionId: sid, Calls: []*tooldv1.ToolCall{{ToolUseId: id, Name: name, Input: in}}})
	if err != nil {
		t.Fatal(err)
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			t.Fatalf("%s %s: %v", name, id, err)
		}
		if r := ev.GetResult(); r != nil {
			return r
		}
	}
}

func text(r *tooldv1.ToolResult) string {
	var sb strings.Builder
	for _, b := range r.GetContent() {
		sb.WriteString(b.GetText().GetText())
	}
	return sb.String()
}

const staleText = "File has been modified since read"

// TestConcurrentEditsAcrossReplicas: two sessions, one on each of two
// replicas sharing Redis and a workspace directory, change one file at
// the same moment from the same read (raceEdits).
func TestConcurrentEditsAcrossReplicas(t *testing.T) {
	rs := redistest.StartServer(t)
	url := "redis://" + rs.Addr + "/0?max_retries=0"
	shared := filepath.Join(t.TempDir(), "shared-root")
	ws := filepath.Join(shared, "ws")
	if err := os.MkdirAll(ws, 0o755); err != nil {
		t.Fatal(err)
	}
	// The stricter rule: of two changes from one read, exactly one wins.
	limits := []string{"--redis-url", url, "--workspace-root", shared, "--rate-limit", "100000", "--rate-burst", "100000", "--require-read-before-write"}
	a := startToold(t, limits...)
	b := startToold(t, limits...)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	ca, cb := dial(t, a.addr), dial(t, b.addr)
	raceEdits(t, ctx, ws, ca, ca.session(t, ctx, ws).GetId(), cb, cb.session(t, ctx, ws).GetId())
}

// TestConcurrentEditsMemoryStore: the same races between two sessions on
// one toold with the memory store, run as a non-root toold (uid 10001)
// when the tests run as root.
func TestConcurrentEditsMemoryStore(t *testing.T) {
	uid := -1
	if os.Geteuid() == 0 {
		uid = 10001
	}
	d := startTooldAs(t, uid, "--rate-limit", "100000", "--rate-burst", "100000", "--require-read-before-write")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	c := dial(t, d.addr)
	first := c.session(t, ctx, "")
	ws := first.GetWorkspace()
	raceEdits(t, ctx, ws, c, first.GetId(), c, c.session(t, ctx, ws).GetId())
}

// raceEdits makes two sessions change one file at the same moment from
// the same read, 200 rounds for each kind of race (Edit vs Edit, Write vs
// Write, Edit vs Write). In every round exactly one wins and the other is
// told to read the file again; no change is lost. A write from a stale
// read never overwrites a newer version.
func raceEdits(t *testing.T, ctx context.Context, ws string, ca *client, sa string, cb *client, sb string) {
	p := filepath.Join(ws, "shared.txt")
	edit := func(i, who int) (string, map[string]any, string) {
		mark := fmt.Sprintf("edit %d by %d", i, who)
		return "Edit", map[string]any{"file_path": p, "old_string": fmt.Sprintf("line %d", who), "new_string": mark}, mark
	}
	write := func(i, who int) (string, map[string]any, string) {
		mark := fmt.Sprintf("write %d by %d\n", i, who)
		return "Write", map[string]any{"file_path": p, "content": mark}, mark
	}
	type change func(i, who int) (string, map[string]any, string)
	races := []struct {
		name string
		a, b change
	}{{"Edit vs Edit", edit, edit}, {"Write vs Write", write, write}, {"Edit vs Write", edit, write}}
	for n, race := range races {
		lost := 0
		for i := range 200 {
			if err := os.WriteFile(p, []byte("line 0\nline 1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			for j, c := range []struct {
				c   *client
				sid string
			}{{ca, sa}, {cb, sb}} {
				if r := c.c.call(t, ctx, c.sid, fmt.Sprintf("r%d-%d-read%d", n, i, j), "Read", map[string]any{"file_path": p}); r.GetIsError() {
					t.Fatalf("read: %s", text(r))
				}
			}
			var wg sync.WaitGroup
			var res [2]*tooldv1.ToolResult
			var marks [2]string
			start := make(chan struct{})
			for who, ch := range []change{race.a, race.b} {
				c, sid := []*client{ca, cb}[who], []string{sa, sb}[who]
				name, in, mark := ch(i, who)
				marks[who] = mark
				wg.Go(func() {
					<-start
					res[who] = c.call(t, ctx, sid, fmt.Sprintf("r%d-%d-w%d", n, i, who), name, in)
				})
			}
			close(start)
			wg.Wait()
			body, _ := os.ReadFile(p)
			won, bad := 0, false
			for who, r := range res {
				switch {
				case !r.GetIsError():
					won++
					bad = bad || !strings.Contains(string(body), marks[who])
				case !strings.Contains(text(r), staleText):
					t.Fatalf("%s round %d: %s", race.name, i, text(r))
				}
			}
			if won != 1 || bad {
				lost++
			}
		}
		t.Logf("%s: %d of 200 rounds lost an update", race.name, lost)
		if lost > 0 {
			t.Errorf("%s: %d of 200 rounds lost an update or had no winner", race.name, lost)
		}
	}

	// A Write from a stale read, from the other session.
	for i := range 50 {
		id := fmt.Sprintf("stale-%d", i)
		if err := os.WriteFile(p, []byte("v0\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		ca.call(t, ctx, sa, id+"-ra", "Read", map[string]any{"file_path": p})
		cb.call(t, ctx, sb, id+"-rb", "Read", map[string]any{"file_path": p})
		if r := cb.call(t, ctx, sb, id+"-wb", "Write", map[string]any{"file_path": p, "content": "v1\n"}); r.GetIsError() {
			t.Fatal(text(r))
		}
		r := ca.call(t, ctx, sa, id+"-wa", "Write", map[string]any{"file_path": p, "content": "v2\n"})
		if !r.GetIsError() || !strings.Contains(text(r), staleText) {
			t.Fatalf("a write from a stale read: %v %s", r.GetIsError(), text(r))
		}
		if body, _ := os.ReadFile(p); string(body) != "v1\n" {
			t.Fatalf("the newer version was overwritten: %q", body)
		}
	}
	if left, _ := filepath.Glob(ws + "/.*toold*"); len(left) > 0 {
		t.Fatalf("left behind: %v", left)
	}
}

// TestHardLinksThroughTheAPI: as root and as a non-root toold, a hard
// link in the workspace to a file outside is neither read, searched nor
// changed; the result is an in-band refusal naming the path.
func TestHardLinksThroughTheAPI(t *testing.T) {
	for _, uid := range []int{-1, 10001} {
		t.Run(fmt.Sprintf("uid %d", uid), func(t *testing.T) {
			if uid >= 0 && os.Geteuid() != 0 {
				t.Skip("switching to a non-root toold needs root")
			}
			d := startTooldAs(t, uid)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			c := dial(t, d.addr)
			s := c.session(t, ctx, "")
			ws := s.GetWorkspace()
			// The canary is readable by toold's user: only the link rule
			// keeps it out.
			canary := filepath.Join(filepath.Dir(d.root), "canary.txt")
			if err := os.WriteFile(canary, []byte("CANARY outside\n"), 0o666); err != nil {
				t.Fatal(err)
			}
			os.Chmod(canary, 0o666)
			if err := os.Link(canary, filepath.Join(ws, "hard.txt")); err != nil {
				t.Fatal(err)
			}
			hard := filepath.Join(ws, "hard.txt")
			calls := []struct {
				name string
				in   map[string]any
			}{
				{"Read", map[string]any{"file_path": hard}},
				{"Edit", map[string]any{"file_path": hard, "old_string": "CANARY", "new_string": "PWNED"}},
				{"Write", map[string]any{"file_path": hard, "content": "PWNED\n"}},
				{"Grep", map[string]any{"pattern": "CANARY", "path": hard, "output_mode": "content"}},
			}
			for i, cl := range calls {
				r := c.call(t, ctx, s.GetId(), fmt.Sprintf("h%d", i), cl.name, cl.in)
				txt := text(r)
				if !r.GetIsError() || strings.Contains(txt, "CANARY") {
					t.Errorf("%s through a hard link: error=%v %q", cl.name, r.GetIsError(), txt)
				}
				if cl.name != "Write" && cl.name != "Edit" || strings.Contains(txt, "hard links") {
					// Write and Edit may stop first at "not read yet".
					if !strings.Contains(txt, hard) || !strings.Contains(txt, "hard links") || r.GetErrorKind() != tooldv1.ErrorKind_ERROR_KIND_PERMISSION_DENIED {
						t.Errorf("%s: %v %q, want a permission refusal naming %s and its hard links", cl.name, r.GetErrorKind(), txt, hard)
					}
				}
			}
			// Swapped in after a Read of a file with the very same content:
			// the stamp's hash matches, the link count does not.
			swap := filepath.Join(ws, "swap.txt")
			if r := c.call(t, ctx, s.GetId(), "s-w", "Write", map[string]any{"file_path": swap, "content": "CANARY outside\n"}); r.GetIsError() {
				t.Fatal(text(r))
			}
			if r := c.call(t, ctx, s.GetId(), "s-r", "Read", map[string]any{"file_path": swap}); r.GetIsError() {
				t.Fatal(text(r))
			}
			if err := os.Link(canary, swap+".new"); err != nil {
				t.Fatal(err)
			}
			if err := os.Rename(swap+".new", swap); err != nil {
				t.Fatal(err)
			}
			for i, name := range []string{"Edit", "Write"} {
				in := map[string]any{"file_path": swap, "old_string": "CANARY", "new_string": "PWNED"}
				if name == "Write" {
					in = map[string]any{"file_path": swap, "content": "PWNED\n"}
				}
				r := c.call(t, ctx, s.GetId(), fmt.Sprintf("s-%d", i), name, in)
				if !r.GetIsError() || !strings.Contains(text(r), "hard links") || strings.Contains(text(r), "CANARY") {
					t.Errorf("%s of a link swapped in after the Read: %v %q", name, r.GetIsError(), text(r))
				}
			}
			r := c.call(t, ctx, s.GetId(), "g-dir", "Grep", map[string]any{"pattern": "CANARY", "output_mode": "content"})
			if strings.Contains(text(r), "CANARY") {
				t.Errorf("Grep over the workspace shows the linked file: %q", text(r))
			}
			if b, _ := os.ReadFile(canary); string(b) != "CANARY outside\n" {
				t.Fatalf("the canary changed: %q", b)
			}
		})
	}
}

// TestKilledWriteIsSwept: toold killed in the middle of a large Write
// leaves its temporary file; the next toold on the same workspace root
// removes it at start.
func TestKilledWriteIsSwept(t *testing.T) {
	root := filepath.Join(t.TempDir(), "root")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	content := strings.Repeat("0123456789abcdef", 3<<20/16) // 3 MiB
	var left string
	for attempt := 0; attempt < 40 && left == ""; attempt++ {
		d := startToold(t, "--workspace-root", root)
		c := dial(t, d.addr)
		s := c.session(t, ctx, "")
		ws := s.GetWorkspace()
		go func() {
			in, _ := structpb.NewStruct(map[string]any{"file_path": ws + "/big.txt", "content": content})
			stream, err := c.tools.Execute(ctx, &tooldv1.ExecuteRequest{SessionId: s.GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "big", Name: "Write", Input: in}}})
			if err == nil {
				for {
					if _, err := stream.Recv(); err != nil {
						return
					}
				}
			}
		}()
		// Stop toold the moment its temporary file shows, then kill it.
		for {
			m, _ := filepath.Glob(ws + "/.big.txt.toold-tmp-*")
			if len(m) > 0 {
				d.cmd.Process.Signal(syscall.SIGSTOP)
				if _, err := os.Stat(m[0]); err == nil {
					left = m[0]
				}
				break
			}
			if _, err := os.Stat(ws + "/big.txt"); err == nil {
				break // finished before it was seen: try again
			}
			if ctx.Err() != nil {
				t.Fatal(ctx.Err())
			}
		}
		d.cmd.Process.Kill()
		<-d.done
	}
	if left == "" {
		t.Skip("no Write was caught in the middle in 40 attempts")
	}
	t.Logf("toold was killed with %s in place", left)
	startToold(t, "--workspace-root", root)
	for {
		if _, err := os.Stat(left); os.IsNotExist(err) {
			break
		}
		if ctx.Err() != nil {
			t.Fatalf("%s was not swept", left)
		}
		time.Sleep(10 * time.Millisecond)
	}
	if m, _ := filepath.Glob(filepath.Dir(left) + "/.*toold*"); len(m) > 0 {
		t.Fatalf("left behind after the sweep: %v", m)
	}
}
