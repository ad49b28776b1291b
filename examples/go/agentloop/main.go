// Command agentloop is an agent loop on the official Anthropic Go SDK whose
// tool calls run in toold through the Go client:
//
//	agentloop [--toold ADDR] [--base-url URL] [--approve] PROMPT
//
// The API key comes from ANTHROPIC_API_KEY and the base URL, when not
// given, from ANTHROPIC_BASE_URL, as the SDK reads them; point it at the
// fake Messages API (go run ./test/fakemessages/cmd/fakemessages --script
// FILE) to run it without a model.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/toold/toold/client"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func main() {
	addr := flag.String("toold", envOr("TOOLD_ADDR", "127.0.0.1:50051"), "toold's address (TOOLD_ADDR)")
	baseURL := flag.String("base-url", "", "Messages API base URL (default: ANTHROPIC_BASE_URL or the real API)")
	model := flag.String("model", "claude-sonnet-4-5", "model")
	approve := flag.Bool("approve", false, "allow the calls that ask (default: deny them)")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: agentloop [flags] PROMPT")
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	opts := []option.RequestOption{}
	if *baseURL != "" {
		opts = append(opts, option.WithBaseURL(*baseURL))
	}
	if os.Getenv("ANTHROPIC_API_KEY") == "" {
		opts = append(opts, option.WithAPIKey("unused-by-the-fake"))
	}
	tc, err := client.Dial(*addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
	defer tc.Close()
	msg, err := agentLoop(ctx, anthropic.NewClient(opts...), tc, *model, flag.Arg(0), nil, handlers(*approve))
	if err != nil {
		fmt.Fprintln(os.Stderr, "agentloop:", err)
		os.Exit(1)
	}
	for _, b := range msg.Content {
		if b.Type == "text" {
			fmt.Println(b.Text)
		}
	}
}

// handlers show the calls' output and answer their permission requests.
func handlers(approve bool) *client.Handlers {
	return &client.Handlers{
		Progress: func(_ string, p *tooldv1.ToolProgress) {
			os.Stderr.Write(p.GetStdout())
			os.Stderr.Write(p.GetStderr())
		},
		Permission: func(_ context.Context, id string, req *tooldv1.PermissionRequest) client.Answer {
			fmt.Fprintf(os.Stderr, "permission request for %s (%s): %s\n", id, req.GetToolName(), req.GetDecision().GetReason())
			if approve {
				return client.AllowOnce()
			}
			return client.Deny("run agentloop with --approve to allow this")
		},
	}
}

func envOr(name, def string) string {
	if v := os.Getenv(name); v != "" {
		return v
	}
	return def
}
