package mcp

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// The test binary doubles as a stdio MCP server: with helperEnv set,
// TestMain runs testServer instead of the tests, so the manager starts a
// real process speaking the protocol through the SDK's server side.
const (
	helperEnv  = "TOOLD_MCP_HELPER_SERVER"
	helperMode = "TOOLD_MCP_HELPER_MODE"
)

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "1" {
		os.Exit(runHelperServer())
	}
	os.Exit(m.Run())
}

// helperConfig is a stdio server entry that runs this test binary as the
// helper server, with extra environment.
func helperConfig(t testing.TB, name string, env map[string]string) ServerConfig {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	e := map[string]string{helperEnv: "1"}
	for k, v := range env {
		e[k] = v
	}
	return ServerConfig{Name: name, Prefix: NormalizeName(name), Transport: Stdio, Command: exe, Env: e}
}

func boolPtr(b bool) *bool { return &b }

var objectSchema = map[string]any{"type": "object", "properties": map[string]any{"text": map[string]any{"type": "string"}}}

func text(s string) *sdk.CallToolResult {
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: s}}}
}

func runHelperServer() int {
	switch os.Getenv(helperMode) {
	case "exit-at-start":
		fmt.Fprintln(os.Stderr, "helper: missing API token")
		return 2
	case "needs-ready-file":
		if _, err := os.Stat("ready"); err != nil {
			fmt.Fprintln(os.Stderr, "helper: not ready")
			return 2
		}
	case "silent":
		// Reads nothing and answers nothing: a server that hangs at start.
		time.Sleep(time.Hour)
		return 0
	}
	srv := sdk.NewServer(&sdk.Implementation{Name: "helper", Version: "1"}, nil)
	srv.AddTool(&sdk.Tool{Name: "echo", Description: "Echo the text.", InputSchema: objectSchema,
		Annotations: &sdk.ToolAnnotations{ReadOnlyHint: true}},
		func(_ context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			var in struct{ Text string }
			_ = json.Unmarshal(req.Params.Arguments, &in)
			return text("echo: " + in.Text), nil
		})
	srv.AddTool(&sdk.Tool{Name: "gentle.write", Description: "Writes, but nothing it cannot undo.", InputSchema: objectSchema,
		Annotations: &sdk.ToolAnnotations{DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(false)}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("written"), nil })
	srv.AddTool(&sdk.Tool{Name: "plain", InputSchema: map[string]any{"type": "object"},
		Meta: sdk.Meta{metaMaxResultChars: 200000.0}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("plain"), nil })
	srv.AddTool(&sdk.Tool{Name: "where", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			wd, _ := os.Getwd()
			return text(fmt.Sprintf("pid=%d cwd=%s token=%s home=%s", os.Getpid(), wd, os.Getenv("HELPER_TOKEN"), os.Getenv("HOME"))), nil
		})
	srv.AddTool(&sdk.Tool{Name: "media", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{
				&sdk.ImageContent{MIMEType: "image/png", Data: []byte("\x89PNG fake")},
				&sdk.AudioContent{MIMEType: "audio/wav", Data: make([]byte, 2048)},
				&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///notes.txt", MIMEType: "text/plain", Text: "the notes"}},
				&sdk.ResourceLink{URI: "file:///big.csv", Name: "big.csv", MIMEType: "text/csv"},
			}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "structured", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			return &sdk.CallToolResult{Content: []sdk.Content{}, StructuredContent: map[string]any{"rows": 3.0}}, nil
		})
	srv.AddTool(&sdk.Tool{Name: "fail", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			res := text("table users does not exist")
			res.IsError = true
			return res, nil
		})
	srv.AddTool(&sdk.Tool{Name: "crash", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			fmt.Fprintln(os.Stderr, "helper: segfault in handler")
			os.Exit(3)
			return nil, nil
		})
	srv.AddTool(&sdk.Tool{Name: "hang", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, _ *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv.AddTool(&sdk.Tool{Name: "garbage", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			os.Stdout.WriteString("this is not JSON-RPC\n")
			time.Sleep(time.Hour)
			return nil, nil
		})
	srv.AddTool(&sdk.Tool{Name: "progress", InputSchema: map[string]any{"type": "object"}},
		func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			for i := 1; i <= 2; i++ {
				_ = req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
					ProgressToken: req.Params.GetProgressToken(), Progress: float64(i), Total: 2, Message: "step " + strconv.Itoa(i)})
			}
			// Held open until the caller gives up, so that the test sees
			// the progress while the call runs.
			<-ctx.Done()
			return nil, ctx.Err()
		})
	srv.AddTool(&sdk.Tool{Name: "spawn", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			c := exec.Command("sleep", "600")
			if err := c.Start(); err != nil {
				return nil, err
			}
			return text(strconv.Itoa(c.Process.Pid)), nil
		})
	srv.AddTool(&sdk.Tool{Name: "grow", InputSchema: map[string]any{"type": "object"}},
		func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
			srv.AddTool(&sdk.Tool{Name: "late", InputSchema: map[string]any{"type": "object"}},
				func(context.Context, *sdk.CallToolRequest) (*sdk.CallToolResult, error) { return text("late"), nil })
			return text("grown"), nil
		})
	if err := srv.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}
