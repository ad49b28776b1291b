package main

import (
	"bytes"
	"fmt"
	"net"
	"os/exec"
	"syscall"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// floorServer is the floor of the Bash figures: a gRPC server whose
// Execute does the least that any server running a client's command with
// bash must do, so that what toold spends per Bash `true` can be set
// against what running bash costs a server on the same machine, in the
// same interleaved run. For each call it runs `bash -c COMMAND` with
// os/exec in a session of its own, its output read through one pipe
// (stdout and stderr together, which os/exec makes the cheapest capture),
// kills what the command left in its group, and sends one result event.
// No policy, journal, sandbox, progress, timeout or working directory.
type floorServer struct {
	tooldv1.UnimplementedToolServiceServer
	bash string
}

func (f floorServer) Execute(req *tooldv1.ExecuteRequest, stream grpc.ServerStreamingServer[tooldv1.ExecuteEvent]) error {
	for _, c := range req.GetCalls() {
		var out bytes.Buffer
		cmd := exec.Command(f.bash, "-c", c.GetInput().GetFields()["command"].GetStringValue())
		cmd.Stdout, cmd.Stderr = &out, &out
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
		err := cmd.Run()
		if cmd.Process == nil {
			return fmt.Errorf("floor: starting bash: %w", err)
		}
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		text := out.String()
		if text == "" {
			text = "(Bash completed with no output)"
		}
		res := &tooldv1.ToolResult{
			IsError: err != nil,
			Content: []*tooldv1.ContentBlock{{Block: &tooldv1.ContentBlock_Text{Text: &tooldv1.TextBlock{Text: text}}}},
		}
		if err := stream.Send(&tooldv1.ExecuteEvent{ToolUseId: c.GetToolUseId(), Seq: 1, Event: &tooldv1.ExecuteEvent_Result{Result: res}}); err != nil {
			return err
		}
	}
	return nil
}

// serveFloor serves the floor server (and a health service, for
// startToold's readiness check) on addr until the process is ended.
func serveFloor(addr string) error {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	s := grpc.NewServer()
	tooldv1.RegisterToolServiceServer(s, floorServer{bash: bash})
	healthpb.RegisterHealthServer(s, health.NewServer())
	return s.Serve(lis)
}
