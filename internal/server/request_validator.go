package server

import (
	"sync"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"buf.build/go/protovalidate"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
)

// requestValidator is protovalidate's global validator, kept out of a
// call's input: google.protobuf.Struct, Value and ListValue declare no
// rules, yet protovalidate walked every member of every input (a Write's
// content, an Edit's strings) to find none. A field of those types is
// still checked by its own rules when it has any.
type requestValidator struct{}

var skipRuleless = []protovalidate.ValidationOption{protovalidate.WithFilter(protovalidate.FilterFunc(walksInto))}

func (requestValidator) Validate(msg proto.Message, opts ...protovalidate.ValidationOption) error {
	if len(opts) == 0 {
		opts = skipRuleless
	} else {
		opts = append(opts[:len(opts):len(opts)], skipRuleless...)
	}
	return protovalidate.GlobalValidator.Validate(msg, opts...)
}

// walksInto is the filter: false only for a field that holds a Struct, a
// Value or a ListValue (or a list of them) and has no rules of its own,
// which skips it and everything below it.
func walksInto(_ protoreflect.Message, d protoreflect.Descriptor) bool {
	fd, ok := d.(protoreflect.FieldDescriptor)
	if !ok || fd.Message() == nil || fd.IsMap() {
		return true
	}
	switch fd.Message().FullName() {
	case structName, valueName, listName:
		if has, ok := hasRules.Load(fd); ok {
			return has.(bool)
		}
		// Looking into the options decodes them: once per field.
		has := proto.HasExtension(fd.Options(), validate.E_Field)
		hasRules.Store(fd, has)
		return has
	}
	return true
}

// hasRules remembers, by field descriptor, whether a field of those types
// has rules of its own.
var hasRules sync.Map
