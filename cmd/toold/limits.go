package main

import (
	"flag"
	"fmt"

	"github.com/toold/toold/internal/strictjson"
)

// limitsConfig bounds what one request may cost the server, so that its
// memory stays a bounded multiple of the bytes sent (docs/limits.md).
type limitsConfig struct {
	// MaxRequestBytes is the gRPC server's largest request message; a
	// larger one is ResourceExhausted before it is decoded.
	MaxRequestBytes int
	// Input bounds the nesting and the values of a call's input: over
	// them is InvalidArgument for a request, an invalid-input result for
	// input that a hook or an MCP server supplies.
	Input strictjson.Limits
}

type limitsFlags struct {
	requestBytes byteSize
	depth        *int
	values       *int
}

func addLimitsFlags(fs *flag.FlagSet) *limitsFlags {
	f := &limitsFlags{requestBytes: 16 << 20}
	fs.Var(&f.requestBytes, "max-request-bytes", "largest request message the gRPC server accepts (a Write carries the whole file in one)")
	f.depth = fs.Int("max-input-depth", strictjson.MaxDepth, "how deeply the arrays and objects of a tool call's input may nest")
	f.values = fs.Int("max-input-values", strictjson.MaxValues, "how many values (members, elements, containers) a tool call's input may hold")
	return f
}

func (f *limitsFlags) config() (limitsConfig, error) {
	c := limitsConfig{MaxRequestBytes: int(f.requestBytes), Input: strictjson.Limits{MaxDepth: *f.depth, MaxValues: *f.values}}
	if f.requestBytes < 64<<10 || f.requestBytes > 1<<30 {
		return c, fmt.Errorf("--max-request-bytes %s: want 64KiB..1GiB", &f.requestBytes)
	}
	if *f.depth < 8 || *f.depth > 10000 {
		return c, fmt.Errorf("--max-input-depth %d: want 8..10000", *f.depth)
	}
	if *f.values < 100 || *f.values > 100_000_000 {
		return c, fmt.Errorf("--max-input-values %d: want 100..100000000", *f.values)
	}
	return c, nil
}
