// Command validateproto writes buf/validate/validate.proto, the schema of
// protovalidate's annotations, under the directory given as its argument.
//
// toold's .proto files import it, but the registry that publishes it as
// source cannot be reached from every build machine. The same schema is
// compiled into the Go module that protovalidate's runtime uses (reached
// through the Go module proxy like any dependency), so the file is printed
// from that descriptor: buf then compiles toold's protos against exactly
// the rules the server enforces. The output is a build input, not source
// (make puts it under .deps/, which git ignores).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go/buf/validate"
	"github.com/jhump/protoreflect/desc"
	"github.com/jhump/protoreflect/desc/protoprint"
)

func main() {
	if len(os.Args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: validateproto DIR")
		os.Exit(2)
	}
	if err := write(os.Args[1]); err != nil {
		fmt.Fprintln(os.Stderr, "validateproto:", err)
		os.Exit(1)
	}
}

func write(dir string) error {
	fd, err := desc.WrapFile(validate.File_buf_validate_validate_proto)
	if err != nil {
		return err
	}
	path := filepath.Join(dir, filepath.FromSlash(fd.GetName()))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	// Written beside, then renamed: a half-written file never looks current
	// to make.
	tmp, err := os.CreateTemp(filepath.Dir(path), ".validate-*.proto")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	fmt.Fprintln(tmp, "// Printed by proto/internal/validateproto from the descriptor compiled into")
	fmt.Fprintln(tmp, "// buf.build/gen/go/bufbuild/protovalidate/protocolbuffers/go. Do not edit.")
	if err := new(protoprint.Printer).PrintProtoFile(fd, tmp); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}
