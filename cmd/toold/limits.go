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
	// MaxInputDepth bounds the nesting of a call's input: deeper is
	// InvalidArgument for a request, an invalid-input result for input
	// that a hook or an MCP server supplies.
	MaxInputDepth int
}

type limitsFlags struct {
	requestBytes byteSize
	inputDepth   *int
}

func addLimitsFlags(fs *flag.FlagSet) *limitsFlags {
	f := &limitsFlags{requestBytes: 16 << 20}
	fs.Var(&f.requestBytes, "max-request-bytes", "largest request message the gRPC server accepts (a Write carries the whole file in one)")
	f.inputDepth = fs.Int("max-input-depth", strictjson.MaxDepth, "how deeply the arrays and objects of a tool call's input may nest")
	return f
}

func (f *limitsFlags) config() (limitsConfig, error) {
	c := limitsConfig{MaxRequestBytes: int(f.requestBytes), MaxInputDepth: *f.inputDepth}
	if f.requestBytes < 64<<10 || f.requestBytes > 1<<30 {
		return c, fmt.Errorf("--max-request-bytes %s: want 64KiB..1GiB", &f.requestBytes)
	}
	if c.MaxInputDepth < 8 || c.MaxInputDepth > 10000 {
		return c, fmt.Errorf("--max-input-depth %d: want 8..10000", c.MaxInputDepth)
	}
	return c, nil
}
