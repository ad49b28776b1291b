package e2e

import (
	"context"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// What concurrent worst-case requests may add to toold's resident
// memory: memoryMultiple times the bytes they carry, plus perRequest for
// each, what a request may cost whatever its size: up to the input limits'
// 100,000 values (~26 MB measured for a dense Struct) or the analysis of a
// Bash command within the shell limits (~24 MB). Measured peaks are at
// most 7.8x and 26 MB per request; the margin is for the garbage
// collector's timing. See docs/limits.md.
const (
	memoryMultiple = 10
	perRequest     = 40 << 20
	concurrent     = 4
)

// memCase is one worst case: the call each of the concurrent requests
// carries, and what the caller must see.
type memCase struct {
	name string
	call func(id string) *tooldv1.ToolCall
	// code is the gRPC status the request ends with (OK: the call gives
	// an in-band result, whose is_error must be wantError).
	code      codes.Code
	wantError bool
}

func deepJSON(levels int) string {
	return `{"command":"true","x":` + strings.Repeat(`{"a":`, levels) + "1" + strings.Repeat("}", levels) + "}"
}

func wideJSON(items int) string {
	return `{"command":"true","x":[` + strings.Repeat("[],", items) + "[]]}"
}

func wideStruct(items int) *structpb.Struct {
	vals := make([]*structpb.Value, items)
	for i := range vals {
		vals[i] = structpb.NewListValue(&structpb.ListValue{})
	}
	return &structpb.Struct{Fields: map[string]*structpb.Value{
		"command": structpb.NewStringValue("true"),
		"x":       structpb.NewListValue(&structpb.ListValue{Values: vals}),
	}}
}

func deepStruct(levels int) *structpb.Struct {
	v := structpb.NewNumberValue(1)
	for range levels {
		v = structpb.NewStructValue(&structpb.Struct{Fields: map[string]*structpb.Value{"a": v}})
	}
	return &structpb.Struct{Fields: map[string]*structpb.Value{"command": structpb.NewStringValue("true"), "x": v}}
}

func memCases() []memCase {
	const mb15 = 15 << 20
	return []memCase{
		{name: "deep input_json", code: codes.InvalidArgument, call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", InputJson: deepJSON(mb15 / 6)}
		}},
		{name: "wide input_json", code: codes.InvalidArgument, call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", InputJson: wideJSON(mb15 / 3)}
		}},
		{name: "wide Struct", code: codes.InvalidArgument, call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", Input: wideStruct(mb15 / 4)}
		}},
		{name: "deep Struct", code: codes.InvalidArgument, call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", Input: deepStruct(5000)}
		}},
		{name: "nested Bash command", wantError: true, call: func(id string) *tooldv1.ToolCall {
			cmd := strings.Repeat("(", 49_000) + "true" + strings.Repeat(")", 49_000)
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", Input: mustStruct(map[string]any{"command": cmd})}
		}},
		// The costliest command the shell limits let through: every
		// parameter expansion is a node of its own.
		{name: "flat Bash command", call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", Input: mustStruct(map[string]any{"command": ": " + strings.Repeat("$a", 49_000)})}
		}},
		// Within the input limits, the densest Struct and JSON text.
		{name: "dense Struct", wantError: true, call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", Input: wideStruct(99_990)}
		}},
		{name: "dense input_json", wantError: true, call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Bash", InputJson: wideJSON(49_990)}
		}},
		{name: "15 MB Write", call: func(id string) *tooldv1.ToolCall {
			return &tooldv1.ToolCall{ToolUseId: id, Name: "Write", InputJson: `{"file_path":"` + id + `.txt","content":"` + strings.Repeat("x", mb15) + `"}`}
		}},
	}
}

func mustStruct(m map[string]any) *structpb.Struct {
	s, err := structpb.NewStruct(m)
	if err != nil {
		panic(err)
	}
	return s
}

// TestMemoryBoundedByRequestSize sends, for each worst case, concurrent
// requests to a fresh toold and checks the peak resident memory they add
// (VmHWM after the kernel's high-water mark is reset, so no sample can
// miss the peak) against the bytes they carry.
func TestMemoryBoundedByRequestSize(t *testing.T) {
	testMemory(t, -1, memCases())
}

// The same as a toold that is not root (uid 10001, as with runAsUser in a
// pod), for the requests the limits refuse or bound (the large ones take
// long enough to run once).
func TestMemoryBoundedAsNonRootToold(t *testing.T) {
	if os.Getuid() != 0 {
		t.Skip("needs root to start toold as another user")
	}
	var small []memCase
	for _, mc := range memCases() {
		switch mc.name {
		case "deep Struct", "nested Bash command", "flat Bash command", "dense Struct", "dense input_json":
			small = append(small, mc)
		}
	}
	testMemory(t, 10001, small)
}

func testMemory(t *testing.T, uid int, cases []memCase) {
	if runtime.GOOS != "linux" {
		t.Skip("reads /proc")
	}
	if raceEnabled {
		// Building 15 MB worst-case requests under the race detector takes
		// minutes and many GB in this process; toold itself is built
		// without it. make test runs this package without -race.
		t.Skip("the worst-case requests are too heavy to build under -race")
	}
	for _, mc := range cases {
		t.Run(mc.name, func(t *testing.T) {
			d := startTooldAs(t, uid)
			cc, err := grpc.NewClient(d.addr, grpc.WithTransportCredentials(insecure.NewCredentials()),
				grpc.WithDefaultCallOptions(grpc.MaxCallSendMsgSize(64<<20), grpc.MaxCallRecvMsgSize(64<<20)))
			if err != nil {
				t.Fatal(err)
			}
			defer cc.Close()
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			sess, err := tooldv1.NewSessionServiceClient(cc).CreateSession(ctx, &tooldv1.CreateSessionRequest{Mode: tooldv1.PermissionMode_PERMISSION_MODE_BYPASS_PERMISSIONS})
			if err != nil {
				t.Fatal(err)
			}
			tools := tooldv1.NewToolServiceClient(cc)
			// Built before the baseline: the client's copies are not
			// toold's.
			reqs := make([]*tooldv1.ExecuteRequest, concurrent)
			size := 0
			for i := range reqs {
				reqs[i] = &tooldv1.ExecuteRequest{SessionId: sess.GetSession().GetId(), Calls: []*tooldv1.ToolCall{mc.call("c" + strconv.Itoa(i))}}
				size += proto.Size(reqs[i])
			}
			// Warm up the code paths with one small call.
			runOne(ctx, t, tools, &tooldv1.ExecuteRequest{SessionId: sess.GetSession().GetId(), Calls: []*tooldv1.ToolCall{{ToolUseId: "warm", Name: "Bash", InputJson: `{"command":"true"}`}}}, codes.OK, false)
			pid := d.cmd.Process.Pid
			resetPeak(t, pid)
			base := procStatus(t, pid, "VmRSS")
			var wg sync.WaitGroup
			for _, r := range reqs {
				wg.Go(func() { runOne(ctx, t, tools, r, mc.code, mc.wantError) })
			}
			wg.Wait()
			added := procStatus(t, pid, "VmHWM") - base
			limit := memoryMultiple*size + concurrent*perRequest
			t.Logf("%s: %d requests of %.2f MB added %.0f MB: %.1fx their size (limit %dx + %d x %d MB)",
				mc.name, concurrent, float64(size)/concurrent/1e6, float64(added)/1e6, float64(added)/float64(size), memoryMultiple, concurrent, perRequest>>20)
			if added > limit {
				t.Errorf("added %d bytes of RSS for %d bytes of requests, more than %d", added, size, limit)
			}
		})
	}
}

func runOne(ctx context.Context, t *testing.T, tools tooldv1.ToolServiceClient, req *tooldv1.ExecuteRequest, code codes.Code, wantError bool) {
	stream, err := tools.Execute(ctx, req)
	if err != nil {
		t.Error(err)
		return
	}
	var result *tooldv1.ToolResult
	for {
		ev, err := stream.Recv()
		if err == io.EOF {
			err = nil
		}
		if err != nil || ev == nil {
			if status.Code(err) != code {
				t.Errorf("%s: got %v, want %v", req.GetCalls()[0].GetToolUseId(), err, code)
			} else if code != codes.OK && !strings.Contains(status.Convert(err).Message(), "calls[0].input") {
				t.Errorf("the status does not name the field: %v", err)
			}
			break
		}
		if r := ev.GetResult(); r != nil {
			result = r
		}
	}
	if code == codes.OK && (result == nil || result.GetIsError() != wantError) {
		t.Errorf("%s: result %v, want is_error %v", req.GetCalls()[0].GetToolUseId(), result, wantError)
	}
}

// resetPeak makes the kernel's peak resident size (VmHWM) start again
// from the current one.
func resetPeak(t *testing.T, pid int) {
	if err := os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0); err != nil {
		t.Skipf("cannot reset the peak RSS of toold: %v", err)
	}
}

func procStatus(t *testing.T, pid int, key string) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) == 3 && f[0] == key+":" {
			n, _ := strconv.Atoi(f[1])
			return n << 10
		}
	}
	t.Fatalf("no %s in /proc/%d/status", key, pid)
	return 0
}
