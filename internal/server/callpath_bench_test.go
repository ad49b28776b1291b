package server_test

import (
	"context"
	"fmt"
	"net"
	"os"
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

	"github.com/toold/toold/internal/exec"
	"github.com/toold/toold/internal/policy"
	"github.com/toold/toold/internal/server"
	"github.com/toold/toold/internal/session"
	"github.com/toold/toold/internal/store"
	"github.com/toold/toold/internal/store/memstore"
	"github.com/toold/toold/internal/tool"
	"github.com/toold/toold/internal/tools/read"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// The call path's figures against a health Check on the same server, as
// ratios from one interleaved run (go test -bench CallPath
// ./internal/server): each round times every kind of request in turn, so
// that load from elsewhere on the machine falls on all of them alike.

type pathFixture struct {
	tools  tooldv1.ToolServiceClient
	health healthpb.HealthClient
	sid    string
	files  []string
	seq    atomic.Int64
}

func newPathFixture(b *testing.B) *pathFixture { return newPathFixtureOn(b, memstore.New()) }

// newPathFixtureOn is the fixture on the given store.
func newPathFixtureOn(b *testing.B, st store.Store) *pathFixture {
	b.Helper()
	reg, err := tool.NewRegistry(read.New(read.Options{}))
	if err != nil {
		b.Fatal(err)
	}
	eng, err := exec.NewEngine(exec.Config{Registry: reg, Store: st, Policy: policy.WorkspaceOnly{}})
	if err != nil {
		b.Fatal(err)
	}
	mgr, err := session.NewManager(st, filepath.Join(b.TempDir(), "ws"), eng, nil)
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
	f := &pathFixture{tools: tooldv1.NewToolServiceClient(conn), health: healthpb.NewHealthClient(conn), sid: sess.GetSession().GetId()}
	var src []byte
	for i := range 40 {
		src = append(src, fmt.Sprintf("line %d of a small source file\n", i)...)
	}
	for i := range 10 {
		p := filepath.Join(sess.GetSession().GetWorkspace(), fmt.Sprintf("small%d.go", i))
		if err := os.WriteFile(p, src, 0o644); err != nil {
			b.Fatal(err)
		}
		f.files = append(f.files, p)
	}
	return f
}

func (f *pathFixture) check(ctx context.Context) error {
	_, err := f.health.Check(ctx, &healthpb.HealthCheckRequest{})
	return err
}

// reads runs one Execute with a Read of each of the first n files and
// waits for the end of its stream.
func (f *pathFixture) reads(ctx context.Context, n int) error {
	calls := make([]*tooldv1.ToolCall, n)
	for i := range n {
		in, _ := structpb.NewStruct(map[string]any{"file_path": f.files[i]})
		calls[i] = &tooldv1.ToolCall{ToolUseId: "toolu_" + strconv.FormatInt(f.seq.Add(1), 36), Name: "Read", Input: in}
	}
	stream, err := f.tools.Execute(ctx, &tooldv1.ExecuteRequest{SessionId: f.sid, Calls: calls})
	if err != nil {
		return err
	}
	results := 0
	for {
		ev, err := stream.Recv()
		if err != nil {
			if results != n {
				return fmt.Errorf("%d results of %d: %v", results, n, err)
			}
			return nil
		}
		if r := ev.GetResult(); r != nil {
			if r.GetIsError() {
				return fmt.Errorf("read failed: %s", r.GetContent()[0].GetText().GetText())
			}
			results++
		}
	}
}

func p50(d []time.Duration) float64 {
	slices.Sort(d)
	return float64(d[len(d)/2])
}

// BenchmarkCallPath reports, per op (one round of each request kind):
// read-p50/health-p50, batch10-p50/read-p50 and, at 64 callers,
// read-throughput/health-throughput.
func BenchmarkCallPath(b *testing.B) {
	f := newPathFixture(b)
	ctx := context.Background()
	var health, one, ten []time.Duration
	timed := func(into *[]time.Duration, op func() error) {
		t0 := time.Now()
		if err := op(); err != nil {
			b.Fatal(err)
		}
		*into = append(*into, time.Since(t0))
	}
	// 64 callers, each doing per rounds of one kind; the kinds alternate.
	const callers, per = 64, 4
	var healthPar, readPar time.Duration
	parallel := func(op func() error) time.Duration {
		t0 := time.Now()
		var wg sync.WaitGroup
		for range callers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for range per {
					if err := op(); err != nil {
						b.Error(err)
						return
					}
				}
			}()
		}
		wg.Wait()
		return time.Since(t0)
	}
	b.ResetTimer()
	for range b.N {
		timed(&health, func() error { return f.check(ctx) })
		timed(&one, func() error { return f.reads(ctx, 1) })
		timed(&ten, func() error { return f.reads(ctx, 10) })
		healthPar += parallel(func() error { return f.check(ctx) })
		readPar += parallel(func() error { return f.reads(ctx, 1) })
	}
	b.StopTimer()
	b.ReportMetric(p50(one)/p50(health), "read/health-p50")
	b.ReportMetric(p50(ten)/p50(one), "batch10/read-p50")
	b.ReportMetric(float64(healthPar)/float64(readPar), "read/health-tput64")
	b.ReportMetric(p50(health)/1e3, "health-p50-us")
	b.ReportMetric(p50(one)/1e3, "read-p50-us")
}

// callReads is reads through the unary Call.
func (f *pathFixture) callReads(ctx context.Context, n int) error {
	calls := make([]*tooldv1.ToolCall, n)
	for i := range n {
		in, _ := structpb.NewStruct(map[string]any{"file_path": f.files[i]})
		calls[i] = &tooldv1.ToolCall{ToolUseId: "toolu_" + strconv.FormatInt(f.seq.Add(1), 36), Name: "Read", Input: in}
	}
	resp, err := f.tools.Call(ctx, &tooldv1.CallRequest{SessionId: f.sid, Calls: calls})
	if err != nil {
		return err
	}
	results := 0
	for _, ev := range resp.GetEvents() {
		if r := ev.GetResult(); r != nil {
			if r.GetIsError() {
				return fmt.Errorf("read failed: %s", r.GetContent()[0].GetText().GetText())
			}
			results++
		}
	}
	if results != n {
		return fmt.Errorf("%d results of %d", results, n)
	}
	return nil
}

// BenchmarkUnaryRead is one small Read per op through the unary Call,
// reported as a ratio to a health Check timed in the same rounds.
func BenchmarkUnaryRead(b *testing.B) {
	f := newPathFixture(b)
	ctx := context.Background()
	var rd, hc []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if err := f.callReads(ctx, 1); err != nil {
			b.Fatal(err)
		}
		t1 := time.Now()
		if err := f.check(ctx); err != nil {
			b.Fatal(err)
		}
		rd, hc = append(rd, t1.Sub(t0)), append(hc, time.Since(t1))
	}
	b.ReportMetric(p50(rd)/p50(hc), "read-p50/health-p50")
}
