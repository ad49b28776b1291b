package main

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"

	"google.golang.org/grpc"
	"google.golang.org/grpc/health"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// The grpc-go floor: what the Read figures come to when the server does
// no work at all. A minimal grpc-go server (grpc.NewServer with its
// defaults: no interceptors, no stats handler, no workers) in a process
// of its own answers every call of an Execute, or of a unary Call, with
// the events toold sent for one small Read, recorded at the start of the
// run; it answers health Checks too. Its figures are taken in the same
// interleaved rounds as toold's: a ratio toold cannot beat even with a
// free engine, given the shape of what goes over the wire (a Struct
// input, three events, a result that carries its text twice).

type readFloorService struct {
	tooldv1.UnimplementedToolServiceServer
	events []*tooldv1.ExecuteEvent // of one call
}

func (f *readFloorService) Execute(req *tooldv1.ExecuteRequest, stream tooldv1.ToolService_ExecuteServer) error {
	for range req.GetCalls() {
		for _, ev := range f.events {
			if err := stream.Send(ev); err != nil {
				return err
			}
		}
	}
	return nil
}

func (f *readFloorService) Call(_ context.Context, req *tooldv1.CallRequest) (*tooldv1.CallResponse, error) {
	out := make([]*tooldv1.ExecuteEvent, 0, len(f.events)*len(req.GetCalls()))
	for range req.GetCalls() {
		out = append(out, f.events...)
	}
	return &tooldv1.CallResponse{Events: out}, nil
}

// serveReadFloor is the Read floor server's main.
func serveReadFloor(addr, eventsFile string) error {
	events, err := readEvents(eventsFile)
	if err != nil {
		return err
	}
	lis, err := net.Listen("tcp", addr)
	if err != nil {
		return err
	}
	srv := grpc.NewServer()
	tooldv1.RegisterToolServiceServer(srv, &readFloorService{events: events})
	hs := health.NewServer()
	healthpb.RegisterHealthServer(srv, hs)
	return srv.Serve(lis)
}

// recordRead runs one Execute of c on s and keeps its events.
func recordRead(ctx context.Context, s *server, c call) ([]*tooldv1.ExecuteEvent, error) {
	req := &tooldv1.ExecuteRequest{SessionId: s.session}
	in, err := structpb.NewStruct(c.input)
	if err != nil {
		return nil, err
	}
	req.Calls = append(req.Calls, &tooldv1.ToolCall{ToolUseId: nextToolUseID(), Name: c.name, Input: in})
	stream, err := s.tools.Execute(ctx, req)
	if err != nil {
		return nil, err
	}
	var evs []*tooldv1.ExecuteEvent
	for {
		ev, err := stream.Recv()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		evs = append(evs, ev)
	}
	if len(evs) == 0 || evs[len(evs)-1].GetResult() == nil || evs[len(evs)-1].GetResult().GetIsError() {
		return nil, fmt.Errorf("recording a Read for the floor: events %v", evs)
	}
	return evs, nil
}

func writeEvents(path string, evs []*tooldv1.ExecuteEvent) error {
	var b []byte
	for _, ev := range evs {
		m, err := proto.Marshal(ev)
		if err != nil {
			return err
		}
		b = binary.AppendUvarint(b, uint64(len(m)))
		b = append(b, m...)
	}
	return os.WriteFile(path, b, 0o600)
}

func readEvents(path string) ([]*tooldv1.ExecuteEvent, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var evs []*tooldv1.ExecuteEvent
	for len(b) > 0 {
		n, k := binary.Uvarint(b)
		if k <= 0 || uint64(len(b)-k) < n {
			return nil, fmt.Errorf("%s: truncated", path)
		}
		ev := &tooldv1.ExecuteEvent{}
		if err := proto.Unmarshal(b[k:k+int(n)], ev); err != nil {
			return nil, err
		}
		evs = append(evs, ev)
		b = b[k+int(n):]
	}
	return evs, nil
}

// startReadFloor records toold's events of one Read of c and starts the floor
// server with them, as this binary in a process of its own.
func startReadFloor(ctx context.Context, toold *server, c call, dir string) (*server, error) {
	evs, err := recordRead(ctx, toold, c)
	if err != nil {
		return nil, err
	}
	file := filepath.Join(dir, "floor-events.bin")
	if err := writeEvents(file, evs); err != nil {
		return nil, err
	}
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	s, err := startToold(ctx, self, "--serve-read-floor", file)
	if err != nil {
		return nil, fmt.Errorf("the Read floor server: %w", err)
	}
	// The floor answers any session and ignores the input: the calls
	// carry toold's paths so that the requests are the same size.
	s.session, s.ws = toold.session, toold.ws
	return s, nil
}
