package server

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/toold/toold/internal/strictjson"
)

// limitCodec is the server's protobuf codec: before a request is decoded,
// it measures every google.protobuf.Struct in it (a call's input) against
// the input limits on the wire bytes, in constant memory. Decoding is what
// costs: protobuf allocates some 70 bytes for a Value that takes two on
// the wire, so a 16 MiB Struct of empty lists decodes into gigabytes, and
// one nested past protobuf's recursion limit fails in grpc-go as Internal.
//
// A codec cannot choose the status of a request it refuses (grpc-go makes
// every decoding error Internal), so a request over a limit is decoded
// without the top-level field that holds the offending Struct, and with a
// note in an unknown field of the request. The limitNote interceptor turns
// the note into InvalidArgument before any handler or validation sees the
// request.
type limitCodec struct {
	base   encoding.CodecV2
	limits strictjson.Limits
}

func newLimitCodec(l strictjson.Limits) limitCodec {
	return limitCodec{base: encoding.GetCodecV2(grpcproto.Name), limits: l.WithDefaults()}
}

func (c limitCodec) Name() string { return grpcproto.Name }

func (c limitCodec) Marshal(v any) (mem.BufferSlice, error) { return c.base.Marshal(v) }

func (c limitCodec) Unmarshal(data mem.BufferSlice, v any) error {
	m, ok := v.(proto.Message)
	if !ok {
		return c.base.Unmarshal(data, v)
	}
	buf := data.MaterializeToBuffer(mem.DefaultBufferPool())
	defer buf.Free()
	b := buf.ReadOnlyData()
	if kept, note := c.check(b, m.ProtoReflect().Descriptor()); note != "" {
		b = protowire.AppendTag(kept, noteField, protowire.BytesType)
		b = protowire.AppendString(b, note)
	}
	return proto.Unmarshal(b, m)
}

// noteField is the unknown field that carries a limit's note: the largest
// field number protobuf allows, which no toold message uses.
const noteField protowire.Number = protowire.MaxValidNumber

// check scans the top-level fields of a request. It returns "" when every
// Struct is within the limits, else the bytes without the offending field
// and what was over, naming the field as the status will ("calls[1].input").
// Malformed bytes are left to the decoder.
func (c limitCodec) check(b []byte, md protoreflect.MessageDescriptor) ([]byte, string) {
	counts := map[protowire.Number]int{}
	for off := 0; off < len(b); {
		num, typ, n := protowire.ConsumeTag(b[off:])
		if n < 0 {
			return nil, ""
		}
		m := protowire.ConsumeFieldValue(num, typ, b[off+n:])
		if m < 0 {
			return nil, ""
		}
		fd := md.Fields().ByNumber(num)
		idx := counts[num]
		counts[num]++
		if fd != nil && fd.Message() != nil && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[off+n:])
			path := []string{string(fd.Name())}
			if fd.IsList() {
				path[0] += "[" + strconv.Itoa(idx) + "]"
			}
			s := &structScan{limits: c.limits}
			if err := s.message(v, fd.Message(), path, 0); err != nil {
				kept := append(append([]byte(nil), b[:off]...), b[off+n+m:]...)
				return kept, err.Error()
			}
		}
		off += n + m
	}
	return nil, ""
}

// structScan walks a message's wire bytes, measuring each Struct it meets
// as strictjson measures JSON text: a Struct or a ListValue is one level,
// and one value plus one per member or element.
type structScan struct {
	limits strictjson.Limits
	depth  int // levels of the Struct being measured; 0 outside one
	values int
}

var (
	structName = (&structpb.Struct{}).ProtoReflect().Descriptor().FullName()
	listName   = (&structpb.ListValue{}).ProtoReflect().Descriptor().FullName()
	valueName  = (&structpb.Value{}).ProtoReflect().Descriptor().FullName()
)

// maxMessageDepth bounds the walk through messages that are not Structs
// (toold's own are a few levels deep); below protobuf's own limit.
const maxMessageDepth = 100

func (s *structScan) message(b []byte, md protoreflect.MessageDescriptor, path []string, nesting int) error {
	outer := s.depth == 0
	switch name := md.FullName(); {
	case name == structName || name == listName:
		if outer {
			s.values = 1
		}
		if s.depth++; s.depth > s.limits.MaxDepth {
			return s.over(path, false)
		}
		defer func() { s.depth-- }()
	case name == valueName && s.depth > 0:
		if s.values++; s.values > s.limits.MaxValues {
			return s.over(path, true)
		}
	case s.depth == 0 && nesting > maxMessageDepth:
		return nil
	}
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil
		}
		if fd := md.Fields().ByNumber(num); fd != nil && fd.Message() != nil && typ == protowire.BytesType {
			v, _ := protowire.ConsumeBytes(b[n:])
			p := path
			if s.depth == 0 {
				p = append(path[:len(path):len(path)], string(fd.Name()))
			}
			if err := s.message(v, fd.Message(), p, nesting+1); err != nil {
				return err
			}
		}
		b = b[n+m:]
	}
	return nil
}

func (s *structScan) over(path []string, values bool) error {
	max := s.limits.MaxDepth
	if values {
		max = s.limits.MaxValues
	}
	return fmt.Errorf("%s: %w", strings.Join(path, "."), &strictjson.LimitError{Values: values, Max: max, Offset: -1})
}

// limitNoteUnary and limitNoteStream refuse a request that the codec
// left a note on.
func limitNoteUnary(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := limitNote(req); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

func limitNoteStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, noteStream{ss})
}

type noteStream struct{ grpc.ServerStream }

func (s noteStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	return limitNote(m)
}

// limitNote returns the note the codec left on a request, if any, as the
// InvalidArgument status the caller gets.
func limitNote(req any) error {
	m, ok := req.(proto.Message)
	if !ok {
		return nil
	}
	for b := m.ProtoReflect().GetUnknown(); len(b) > 0; {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return nil
		}
		if num == noteField && typ == protowire.BytesType {
			v, _ := protowire.ConsumeString(b[n:])
			return status.Error(codes.InvalidArgument, v)
		}
		m := protowire.ConsumeFieldValue(num, typ, b[n:])
		if m < 0 {
			return nil
		}
		b = b[n+m:]
	}
	return nil
}
