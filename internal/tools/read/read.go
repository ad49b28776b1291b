// Package read implements the Read tool: a file's text as numbered lines,
// or an image the model can look at.
package read

import (
	"encoding/json"
	"math"

	"github.com/toold/toold/internal/tool"
)

// Options tunes the limits of Read. Zero fields take the defaults.
type Options struct {
	// MaxOutputBytes caps the text of one result (default 90,000). It stays
	// under the engine's 100,000-character cut so that the note telling the
	// model where to continue is never the part cut away.
	MaxOutputBytes int
	// MaxImageBytes is the largest image returned (default 5 MiB).
	MaxImageBytes int64
	// CountBudgetBytes bounds how far past the returned lines the file is
	// scanned to count its remaining lines (default 16 MiB); beyond it the
	// note gives a lower bound, so reading 10 lines of a huge file stays cheap.
	CountBudgetBytes int64
}

const (
	defaultLimit            = 2000
	defaultMaxOutputBytes   = 90_000
	defaultMaxImageBytes    = 5 << 20
	defaultCountBudgetBytes = 16 << 20
)

// New returns the Read tool.
func New(opts Options) tool.Tool {
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = defaultMaxOutputBytes
	}
	if opts.MaxImageBytes <= 0 {
		opts.MaxImageBytes = defaultMaxImageBytes
	}
	if opts.CountBudgetBytes <= 0 {
		opts.CountBudgetBytes = defaultCountBudgetBytes
	}
	return &readTool{opts: opts}
}

type readTool struct {
	opts Options
}

func (t *readTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "Read",
		Description: description,
		InputSchema: json.RawMessage(inputSchema),
	}
}

type input struct {
	FilePath string `json:"file_path"`
	// Numbers arrive as JSON numbers that may be written 10.0; the schema
	// has checked they are integers.
	Offset *float64 `json:"offset"`
	Limit  *float64 `json:"limit"`
}

func (t *readTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Read: %v", err)
	}
	if in.FilePath == "" {
		return nil, tool.InvalidInputf("file_path is empty: give the absolute path of the file to read.")
	}
	c := &call{opts: &t.opts, path: in.FilePath, start: 1, limit: defaultLimit}
	if in.Offset != nil {
		o, ok := whole(*in.Offset)
		if !ok || o < 0 {
			return nil, tool.InvalidInputf("offset must be a line number (1 for the first line), got %v.", *in.Offset)
		}
		// Offset 0 is taken as the first line, as Claude Code does: models
		// send it meaning "from the start".
		c.start = max(o, 1)
	}
	if in.Limit != nil {
		l, ok := whole(*in.Limit)
		if !ok || l < 1 {
			return nil, tool.InvalidInputf("limit must be a number of lines of at least 1, got %v.", *in.Limit)
		}
		c.limit, c.limitGiven = l, true
	}
	return c, nil
}

// whole converts an integral float to int, saturating far past any file's
// line count.
func whole(f float64) (int, bool) {
	if f != math.Trunc(f) || math.IsNaN(f) {
		return 0, false
	}
	return int(min(max(f, -1), 1<<53)), true
}

// call is one parsed Read.
type call struct {
	opts  *Options
	path  string
	start int // first line to show, 1-based
	limit int
	// limitGiven tells the note on a partial view which limit stopped it.
	limitGiven bool
}

func (c *call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true}
}

// Activity names the path as the model gave it: the invocation does not
// know the session's workspace, and models give absolute paths.
func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Read " + c.path, Read: true}
}
