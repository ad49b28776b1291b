// Package bench measures toold's call path against bare baselines in the
// same run: a gRPC health Check on the same server, and `bash -c true`
// started directly from Go. Run with `make bench` or bench/run.sh; the
// figures are ratios, never wall-clock assertions.
package bench

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/types/known/structpb"

	texec "github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/sandbox"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/bash"
	"github.com/toold/toold/internal/tools/read"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

type fixture struct {
	conn   *grpc.ClientConn
	tools  tooldv1.ToolServiceClient
	health healthpb.HealthClient
	sid    string
	file   string
}

// start serves toold on a loopback TCP port, as a deployment would, with
// the in-memory store.
func start(b *testing.B) *fixture { return startWith(b, memstore.New()) }

func startWith(b *testing.B, st store.Store) *fixture { return startBash(b, st, bash.Options{}) }

func startBash(b *testing.B, st store.Store, bashOpts bash.Options) *fixture {
	b.Helper()
	reg, err := tool.NewRegistry(read.New(read.Options{}), bash.New(bashOpts))
	if err != nil {
		b.Fatal(err)
	}
	eng, err := texec.NewEngine(texec.Config{Registry: reg, Store: st, Policy: policy.WorkspaceOnly{}, Environ: texec.ProcessEnviron()})
	if err != nil {
		b.Fatal(err)
	}
	root := b.TempDir()
	// The sandbox user must pass through to the workspaces.
	for d := root; d != os.TempDir() && d != filepath.Dir(d); d = filepath.Dir(d) {
		os.Chmod(d, 0o711)
	}
	mgr, err := session.NewManager(st, filepath.Join(root, "ws"), eng, nil)
	if err != nil {
		b.Fatal(err)
	}
	ts, err := server.NewToolService(reg, eng, mgr, 64)
	if err != nil {
		b.Fatal(err)
	}
	srv, _ := server.New(server.Options{}, server.NewSessionService(mgr, eng), ts)
	lis, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	go srv.Serve(lis)
	b.Cleanup(srv.Stop)
	conn, err := grpc.NewClient(lis.Addr().String(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { conn.Close() })
	sess, err := tooldv1.NewSessionServiceClient(conn).CreateSession(context.Background(), &tooldv1.CreateSessionRequest{})
	if err != nil {
		b.Fatal(err)
	}
	f := &fixture{conn: conn, tools: tooldv1.NewToolServiceClient(conn), health: healthpb.NewHealthClient(conn),
		sid: sess.GetSession().GetId(), file: filepath.Join(sess.GetSession().GetWorkspace(), "small.go")}
	var src []byte
	for i := range 40 {
		src = append(src, []byte("line "+string(rune('a'+i%26))+" of a small source file\n")...)
	}
	if err := os.WriteFile(f.file, src, 0o644); err != nil {
		b.Fatal(err)
	}
	return f
}

// callSeq makes every call's tool_use_id new: a repeated one would be
// answered from the journal instead of running.
var callSeq atomic.Int64

func (f *fixture) execute(ctx context.Context, name string, in map[string]any) error {
	input, _ := structpb.NewStruct(in)
	id := "toolu_" + strconv.FormatInt(callSeq.Add(1), 36)
	stream, err := f.tools.Execute(ctx, &tooldv1.ExecuteRequest{SessionId: f.sid, Calls: []*tooldv1.ToolCall{{ToolUseId: id, Name: name, Input: input}}})
	if err != nil {
		return err
	}
	for {
		ev, err := stream.Recv()
		if err != nil {
			return err
		}
		if r := ev.GetResult(); r != nil {
			if r.GetIsError() && name != "NoSuchTool" {
				panic(r.GetContent()[0].GetText().GetText())
			}
			// Drain to the end of the stream so the RPC completes.
			for {
				if _, err := stream.Recv(); err != nil {
					return nil
				}
			}
		}
	}
}

// measure runs op b.N times from one goroutine and reports the p50.
func measure(b *testing.B, op func() error) {
	lat := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for range b.N {
		t0 := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds()), "p50-ns")
}

// parallel runs op b.N times from 64 goroutines; ns/op is then the inverse
// of throughput.
func parallel(b *testing.B, op func() error) {
	var wg sync.WaitGroup
	work := make(chan struct{}, b.N)
	for range b.N {
		work <- struct{}{}
	}
	close(work)
	b.ResetTimer()
	for range 64 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range work {
				if err := op(); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
}

func BenchmarkHealthCheck(b *testing.B) {
	f := start(b)
	ctx := context.Background()
	op := func() error { _, err := f.health.Check(ctx, &healthpb.HealthCheckRequest{}); return err }
	b.Run("serial", func(b *testing.B) { measure(b, op) })
	b.Run("parallel64", func(b *testing.B) { parallel(b, op) })
}

func BenchmarkExecuteRead(b *testing.B) {
	f := start(b)
	ctx := context.Background()
	op := func() error { return f.execute(ctx, "Read", map[string]any{"file_path": f.file}) }
	b.Run("serial", func(b *testing.B) { measure(b, op) })
	b.Run("parallel64", func(b *testing.B) { parallel(b, op) })
}

// BenchmarkExecuteFloor is an Execute whose one call fails at lookup: the
// stream, the engine and one result event, with no tool work. It separates
// the cost of the streaming RPC from the cost of a tool.
func BenchmarkExecuteFloor(b *testing.B) {
	f := start(b)
	ctx := context.Background()
	measure(b, func() error { return f.execute(ctx, "NoSuchTool", map[string]any{}) })
}

func BenchmarkExecuteBashTrue(b *testing.B) {
	f := start(b)
	ctx := context.Background()
	measure(b, func() error { return f.execute(ctx, "Bash", map[string]any{"command": "true"}) })
}

// BenchmarkExecuteBashTrueSandboxed is BenchmarkExecuteBashTrue with the
// sandbox on (best-effort): "cgroup" where toold confines the command
// itself, "helper" without cgroups, where a helper of the pool runs it.
func BenchmarkExecuteBashTrueSandboxed(b *testing.B) {
	for _, mode := range []struct{ name, cgroupDir string }{{"cgroup", ""}, {"helper", "-"}} {
		b.Run(mode.name, func(b *testing.B) {
			l, err := sandbox.New(sandbox.Options{
				Mode: sandbox.ModeBestEffort, Network: true, CgroupDir: mode.cgroupDir,
				Limits: sandbox.DefaultLimits(), Executable: helperBinary(b),
			}, nil)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { l.Close() })
			if mode.cgroupDir == "" && !l.Status().Cgroup {
				b.Logf("no writable cgroup here (%v): this figure is the helper's", l.Status().Missing)
			}
			f := startBash(b, memstore.New(), bash.Options{Sandbox: l})
			ctx := context.Background()
			measure(b, func() error { return f.execute(ctx, "Bash", map[string]any{"command": "true"}) })
		})
	}
}

var (
	helperOnce sync.Once
	helperPath string
	helperErr  error
)

// helperBinary builds toold-sandbox once, as make build places it.
func helperBinary(b *testing.B) string {
	helperOnce.Do(func() {
		dir, err := os.MkdirTemp("", "toold-bench-helper")
		if err != nil {
			helperErr = err
			return
		}
		helperPath = filepath.Join(dir, "toold-sandbox")
		cmd := exec.Command("go", "build", "-o", helperPath, "../cmd/toold-sandbox")
		if out, err := cmd.CombinedOutput(); err != nil {
			helperErr = fmt.Errorf("go build toold-sandbox: %v\n%s", err, out)
		}
	})
	if helperErr != nil {
		b.Fatal(helperErr)
	}
	return helperPath
}

func BenchmarkExecBashTrue(b *testing.B) {
	measure(b, func() error { return exec.Command("bash", "-c", "true").Run() })
}
