package tool

// BlockType is the kind of one content block of a result.
type BlockType int

const (
	BlockText BlockType = iota
	BlockImage
	// BlockDocument is a file the model reads whole, as the Messages API's
	// document block: MediaType (application/pdf) and Data.
	BlockDocument
)

// Block is one content block of a tool_result.
type Block struct {
	Type      BlockType
	Text      string
	MediaType string // images: image/png, image/jpeg, image/gif, image/webp; documents: application/pdf
	Data      []byte // images and documents: the file's bytes, not base64
}

// Result is what a call produced.
type Result struct {
	Content []Block
	// IsError marks a result whose content explains a failure the tool ran
	// into itself (a non-zero exit). Kind says which.
	IsError bool
	Kind    ErrorKind
	// Meta carries machine-readable facts about the call (exit_code,
	// truncated, ...), passed to the client beside the content.
	Meta map[string]any
	// ModelContext is text for the model outside the tool_result (what
	// hooks say about the call), as Claude Code sends it: in a message of
	// its own after the result.
	ModelContext []string
}

// Text returns a successful result with one text block.
func Text(s string) *Result {
	return &Result{Content: []Block{{Type: BlockText, Text: s}}}
}

// Image returns a successful result with one image block.
func Image(mediaType string, data []byte) *Result {
	return &Result{Content: []Block{{Type: BlockImage, MediaType: mediaType, Data: data}}}
}

// ErrorResult returns an error result of the given kind with one text block.
func ErrorResult(kind ErrorKind, text string) *Result {
	return &Result{Content: []Block{{Type: BlockText, Text: text}}, IsError: true, Kind: kind}
}

// WithMeta sets a meta entry and returns r.
func (r *Result) WithMeta(key string, v any) *Result {
	if r.Meta == nil {
		r.Meta = make(map[string]any, 2)
	}
	r.Meta[key] = v
	return r
}
