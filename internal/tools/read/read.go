// Package read implements the Read tool: a file's text as numbered lines,
// an image the model can look at (scaled down to what the Messages API
// takes), a PDF as a document block of the pages asked for, or a Jupyter
// notebook's cells with their outputs.
package read

import (
	"encoding/json"
	"math"

	"github.com/toold/toold/internal/tool"
)

// Options tunes the limits of Read. Zero fields take the defaults.
type Options struct {
	// Tasks opens the output files of the session's background tasks
	// (their handles, tool.TaskOutputHandle). Nil: no handle names a file.
	Tasks TaskOutputs
	// MaxOutputBytes caps the text of one result (default 90,000). It stays
	// under the engine's 100,000-character cut so that the note telling the
	// model where to continue is never the part cut away.
	MaxOutputBytes int
	// MaxImageBytes is the largest encoded image returned (default
	// 3.75 MiB: the Messages API refuses an image whose base64 form passes
	// 5 MiB). A larger image is re-encoded, and scaled down further, until
	// it fits.
	MaxImageBytes int64
	// MaxImageDimension is the longest side, in pixels, of an image returned
	// (default 2000: the API refuses larger images in a request that holds
	// many, and scales down anything past about 1568 itself, so nothing the
	// model could see is lost).
	MaxImageDimension int
	// MaxImageFileBytes is the largest image file Read will decode to scale
	// down (default 50 MiB); MaxImagePixels bounds its decoded size (default
	// 50 megapixels, about 200 MiB of memory), so a small file that claims
	// huge dimensions is refused before it is decoded.
	MaxImageFileBytes int64
	MaxImagePixels    int64
	// MaxPDFBytes is the largest PDF file Read parses (default 100 MiB).
	MaxPDFBytes int64
	// MaxDocumentBytes is the largest PDF returned as a document block
	// (default 20 MiB: its base64 form, about 27 MiB, must fit in the API's
	// 32 MB request with the rest of the conversation). A larger selection
	// of pages is refused with a hint to ask for fewer.
	MaxDocumentBytes int64
	// MaxNotebookBytes is the largest notebook Read renders (default 100 MB,
	// as Claude Code documents).
	MaxNotebookBytes int64
	// MaxTokens caps a text read at an estimated token count (0: no cap),
	// as Claude Code does when the Messages API cannot count for it: the
	// estimate is one token per four characters of the lines chosen. Over
	// it, a read with a limit is refused and one without is cut to the
	// whole lines that fit in 85 % of the cap (see tokenCap). Claude Code
	// with a working API counts exactly, which toold cannot; off by default
	// so that a read returns what Claude Code's does in the common case.
	MaxTokens int
}

const (
	defaultMaxOutputBytes    = 90_000
	defaultMaxImageBytes     = (5 << 20) * 3 / 4
	defaultMaxImageDimension = 2000
	defaultMaxImageFileBytes = 50 << 20
	defaultMaxImagePixels    = 50_000_000
	defaultMaxPDFBytes       = 100 << 20
	defaultMaxDocumentBytes  = 20 << 20
	defaultMaxNotebookBytes  = 100 << 20
)

// Claude Code's documented PDF rules: a PDF of more than pdfWholeMaxPages
// pages must be read with pages, and one call returns at most
// pdfMaxPagesPerCall pages.
const (
	pdfWholeMaxPages   = 10
	pdfMaxPagesPerCall = 20
)

// New returns the Read tool.
func New(opts Options) tool.Tool {
	if opts.MaxOutputBytes <= 0 {
		opts.MaxOutputBytes = defaultMaxOutputBytes
	}
	setDefault(&opts.MaxImageBytes, defaultMaxImageBytes)
	setDefault(&opts.MaxImageDimension, defaultMaxImageDimension)
	setDefault(&opts.MaxImageFileBytes, defaultMaxImageFileBytes)
	setDefault(&opts.MaxImagePixels, defaultMaxImagePixels)
	setDefault(&opts.MaxPDFBytes, defaultMaxPDFBytes)
	setDefault(&opts.MaxDocumentBytes, defaultMaxDocumentBytes)
	setDefault(&opts.MaxNotebookBytes, defaultMaxNotebookBytes)
	return &readTool{opts: opts, description: describe(&opts)}
}

func setDefault[T int | int64](v *T, def T) {
	if *v <= 0 {
		*v = def
	}
}

type readTool struct {
	opts        Options
	description string
}

func (t *readTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "Read",
		Description: t.description,
		InputSchema: json.RawMessage(inputSchema),
		// Read bounds its own output; storing it would only make the model
		// read the stored copy with Read again.
		MaxResultChars: 500_000,
		Paths:          tool.PathsRead,
		PathDenyText:   true,
	}
}

type input struct {
	FilePath string `json:"file_path"`
	// Numbers arrive as JSON numbers that may be written 10.0; the schema
	// has checked they are integers.
	Offset *float64 `json:"offset"`
	Limit  *float64 `json:"limit"`
	Pages  *string  `json:"pages"`
	// AllowLarge lifts the size limit of a text file read whole.
	AllowLarge bool `json:"allow_large"`
}

func (t *readTool) Parse(raw json.RawMessage) (tool.Invocation, error) {
	var in input
	if err := json.Unmarshal(raw, &in); err != nil {
		return nil, tool.InvalidInputf("Invalid input for Read: %v", err)
	}
	if in.FilePath == "" {
		return nil, tool.InvalidInputf("file_path is empty: give the absolute path of the file to read.")
	}
	c := &call{opts: &t.opts, path: in.FilePath, start: 1, allowLarge: in.AllowLarge, partial: in.Offset != nil || in.Limit != nil}
	if in.Offset != nil {
		o, ok := whole(*in.Offset)
		if !ok {
			return nil, tool.InvalidInputf("offset must be a line number (1 for the first line), got %v.", *in.Offset)
		}
		// As in Claude Code: offset 0 starts at the first line and numbers
		// it 0; a negative offset is the default, 1.
		if o >= 0 {
			c.start = o
		}
	}
	if in.Limit != nil {
		l, ok := whole(*in.Limit)
		if !ok {
			return nil, tool.InvalidInputf("limit must be a number of lines, got %v.", *in.Limit)
		}
		// A limit of 0 or less reads to the end, as in Claude Code.
		if l > 0 {
			c.limit, c.limitGiven = l, true
		}
	}
	if in.Pages != nil {
		sel, err := parsePages(*in.Pages)
		if err != nil {
			return nil, err
		}
		c.pages = sel
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
	// limitGiven says a limit was given: only then may a file over the
	// size limit be read.
	limitGiven bool
	// allowLarge lifts the size limit of a text file read whole.
	allowLarge bool
	// pages is the PDF page selection; nil when none was given.
	pages pageSet
	// partial says an offset or limit was given: the read is recorded as
	// one of part of the file, and a later Edit, as in Claude Code, does
	// not say the model's view is current.
	partial bool
}

func (c *call) Traits() tool.Traits {
	return tool.Traits{ReadOnly: true, ConcurrencySafe: true, Repeatable: true}
}

// Activity names the path as the model gave it: the invocation does not
// know the session's workspace, and models give absolute paths.
func (c *call) Activity() tool.Activity {
	return tool.Activity{Summary: "Read " + c.path, Read: true}
}
