// Command classifier is a small reference classifier for toold's auto
// mode: rules of thumb, not a model. It lets the mode be tried and
// tested; a real deployment puts its own judgement behind the same
// protocol.
//
//	classifier --listen 127.0.0.1:50061   serve toold.v1.ClassifierService
//	classifier                            answer one ClassifyRequest (JSON on
//	                                      stdin) for --classifier-command
//
// What it decides (everything else is left to a person):
//   - Bash: allows commands that only read or run a project's tests and
//     builds (npm test, go test, make test, ls, git status, ...); denies
//     network tools (curl, wget, nc, ssh, ...), a download piped into a
//     shell, sudo, and rm -r of the root, the home directory or a path
//     outside the working directory.
//   - Write, Edit, MultiEdit, NotebookEdit: allows paths inside the working
//     directory outside .git; denies content holding a private key.
//   - WebFetch: denies plain http; allows a few documentation hosts.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"os"
	"os/signal"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/protobuf/encoding/protojson"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

func main() {
	listen := flag.String("listen", "", "serve toold.v1.ClassifierService on this address; without it, answer one request from stdin")
	flag.Parse()
	if *listen == "" {
		if err := answerStdin(os.Stdin, os.Stdout); err != nil {
			fmt.Fprintln(os.Stderr, "classifier:", err)
			os.Exit(1)
		}
		return
	}
	if err := serve(*listen); err != nil {
		log.Fatal(err)
	}
}

// answerStdin is the command protocol: one request in, one answer out.
func answerStdin(r io.Reader, w io.Writer) error {
	data, err := io.ReadAll(io.LimitReader(r, 1<<20))
	if err != nil {
		return err
	}
	var req tooldv1.ClassifyRequest
	if err := protojson.Unmarshal(data, &req); err != nil {
		return fmt.Errorf("reading the request: %w", err)
	}
	v := judge(&req)
	return json.NewEncoder(w).Encode(map[string]string{"verdict": v.verdict, "reason": v.reason})
}

type service struct {
	tooldv1.UnimplementedClassifierServiceServer
}

var protoVerdicts = map[string]tooldv1.ClassifierVerdict{
	"allow": tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ALLOW,
	"deny":  tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_DENY,
	"ask":   tooldv1.ClassifierVerdict_CLASSIFIER_VERDICT_ASK,
}

func (service) Classify(_ context.Context, req *tooldv1.ClassifyRequest) (*tooldv1.ClassifyResponse, error) {
	v := judge(req)
	log.Printf("%s %s: %s (%s)", req.GetSessionId(), req.GetToolName(), v.verdict, v.reason)
	return &tooldv1.ClassifyResponse{Verdict: protoVerdicts[v.verdict], Reason: v.reason}, nil
}

func serve(addr string) error {
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	tooldv1.RegisterClassifierServiceServer(srv, service{})
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	go func() { <-ctx.Done(); srv.GracefulStop() }()
	log.Printf("classifier listening on %s", lis.Addr())
	return srv.Serve(lis)
}
