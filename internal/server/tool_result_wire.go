package server

import (
	"encoding/base64"

	"google.golang.org/protobuf/encoding/protowire"

	"github.com/toold/toold/internal/tool"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// A result's tool_result block is written straight to its wire form, the
// bytes protobuf writes for the google.protobuf.Struct, and goes on the
// ToolResult as the unknown field of tool_result's number: a receiver
// decodes it as that field. Built as a Struct, the block cost some twenty
// allocations (a map and a Value per member, a copy of every key when
// marshalled), a fifth of what a small Read allocated for its events.

// toolResultField is ToolResult.tool_result's field number.
var toolResultField = (&tooldv1.ToolResult{}).ProtoReflect().Descriptor().Fields().ByName("tool_result").Number()

// wireValue is a google.protobuf.Value to encode: a string, a bool, an
// object (its members in order) or a list.
type wireValue struct {
	kind   wireKind
	s      string
	b      bool
	fields []wireField
	items  []wireValue
}

type wireKind uint8

const (
	wireString wireKind = iota
	wireBool
	wireObject
	wireList
)

type wireField struct {
	key string
	v   wireValue
}

func wireStr(s string) wireValue                 { return wireValue{kind: wireString, s: s} }
func wireObj(fields ...wireField) wireValue      { return wireValue{kind: wireObject, fields: fields} }
func wireMember(k string, v wireValue) wireField { return wireField{k, v} }

// Field numbers of google.protobuf.Struct, Value and ListValue.
const (
	structFields    protowire.Number = 1 // Struct.fields, map<string, Value>
	entryKey        protowire.Number = 1
	entryValue      protowire.Number = 2
	valueString     protowire.Number = 3
	valueBool       protowire.Number = 4
	valueStruct     protowire.Number = 5
	valueList       protowire.Number = 6
	listValueValues protowire.Number = 1
)

// size is the encoded size of v as a Value message's content.
func (v *wireValue) size() int {
	switch v.kind {
	case wireString:
		return protowire.SizeTag(valueString) + protowire.SizeBytes(len(v.s))
	case wireBool:
		return protowire.SizeTag(valueBool) + protowire.SizeVarint(protowire.EncodeBool(v.b))
	case wireObject:
		return protowire.SizeTag(valueStruct) + protowire.SizeBytes(structSize(v.fields))
	default:
		return protowire.SizeTag(valueList) + protowire.SizeBytes(listSize(v.items))
	}
}

func (v *wireValue) append(b []byte) []byte {
	switch v.kind {
	case wireString:
		b = protowire.AppendTag(b, valueString, protowire.BytesType)
		return protowire.AppendString(b, v.s)
	case wireBool:
		b = protowire.AppendTag(b, valueBool, protowire.VarintType)
		return protowire.AppendVarint(b, protowire.EncodeBool(v.b))
	case wireObject:
		b = protowire.AppendTag(b, valueStruct, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(structSize(v.fields)))
		return appendStruct(b, v.fields)
	default:
		b = protowire.AppendTag(b, valueList, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(listSize(v.items)))
		for i := range v.items {
			b = protowire.AppendTag(b, listValueValues, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(v.items[i].size()))
			b = v.items[i].append(b)
		}
		return b
	}
}

func entrySize(f *wireField) int {
	return protowire.SizeTag(entryKey) + protowire.SizeBytes(len(f.key)) +
		protowire.SizeTag(entryValue) + protowire.SizeBytes(f.v.size())
}

// structSize is the encoded size of a Struct's content with these members.
func structSize(fields []wireField) int {
	n := 0
	for i := range fields {
		n += protowire.SizeTag(structFields) + protowire.SizeBytes(entrySize(&fields[i]))
	}
	return n
}

func listSize(items []wireValue) int {
	n := 0
	for i := range items {
		n += protowire.SizeTag(listValueValues) + protowire.SizeBytes(items[i].size())
	}
	return n
}

// appendStruct appends a Struct's content: one map entry per member.
func appendStruct(b []byte, fields []wireField) []byte {
	for i := range fields {
		f := &fields[i]
		b = protowire.AppendTag(b, structFields, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(entrySize(f)))
		b = protowire.AppendTag(b, entryKey, protowire.BytesType)
		b = protowire.AppendString(b, f.key)
		b = protowire.AppendTag(b, entryValue, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(f.v.size()))
		b = f.v.append(b)
	}
	return b
}

// blockValue is a content block as the Messages API has it.
func blockValue(b tool.Block) wireValue {
	switch b.Type {
	case tool.BlockImage:
		return sourceBlock("image", b)
	case tool.BlockDocument:
		return sourceBlock("document", b)
	}
	return wireObj(wireMember("type", wireStr("text")), wireMember("text", wireStr(b.Text)))
}

func sourceBlock(typ string, b tool.Block) wireValue {
	return wireObj(
		wireMember("type", wireStr(typ)),
		wireMember("source", wireObj(
			wireMember("type", wireStr("base64")),
			wireMember("media_type", wireStr(b.MediaType)),
			wireMember("data", wireStr(base64.StdEncoding.EncodeToString(b.Data))),
		)),
	)
}

// toolResultUnknown is the tool_result block of r, for toolUseID, as the
// ToolResult's unknown field: {"type":"tool_result","tool_use_id":...,
// "content":[...],"is_error":...}.
func toolResultUnknown(toolUseID string, r *tool.Result) []byte {
	content := make([]wireValue, len(r.Content))
	for i, b := range r.Content {
		content[i] = blockValue(b)
	}
	top := [...]wireField{
		wireMember("type", wireStr("tool_result")),
		wireMember("tool_use_id", wireStr(toolUseID)),
		wireMember("content", wireValue{kind: wireList, items: content}),
		wireMember("is_error", wireValue{kind: wireBool, b: r.IsError}),
	}
	n := structSize(top[:])
	out := make([]byte, 0, protowire.SizeTag(toolResultField)+protowire.SizeBytes(n))
	out = protowire.AppendTag(out, toolResultField, protowire.BytesType)
	out = protowire.AppendVarint(out, uint64(n))
	return appendStruct(out, top[:])
}
