package exec

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/toold/toold/internal/tool"
)

// Large results. A result whose text is longer than its tool's limit is
// stored whole in the session's state, with the call's other effects, and
// the model gets its start with a handle it can page through with Read.
// The session's store holds it, so any replica can serve it, and it is
// dropped with the session.
const (
	// DefaultMaxResultChars is the limit of a tool that declares none
	// (Claude Code persists results past 50K characters).
	DefaultMaxResultChars = 50_000
	// MaxDeclaredResultChars bounds what a tool may declare, as Claude Code
	// bounds _meta["anthropic/maxResultSizeChars"].
	MaxDeclaredResultChars = 500_000
	// PreviewBytes is how much of a stored result the model sees at once.
	PreviewBytes = 2000
	// maxStoredBytes bounds one stored result: past it the text is cut
	// with a note, so one call cannot fill the store.
	maxStoredBytes = 16 << 20
)

// resultLimit is the inline limit of a tool's results.
func resultLimit(def tool.Definition) int {
	switch n := def.MaxResultChars; {
	case n <= 0:
		return DefaultMaxResultChars
	case n > MaxDeclaredResultChars:
		return MaxDeclaredResultChars
	default:
		return n
	}
}

// blobStore is where a call's stored result goes: its call log, which
// stores it with the result in one step.
type blobStore interface {
	PutBlob(ctx context.Context, key string, data []byte) error
}

// persist replaces the text of a result past limit characters by a
// preview and a handle, after storing the text whole under the call's
// tool_use_id. The text blocks are stored joined, in order; other blocks
// (images, documents) stay as they are. When the text cannot be stored the
// result is left alone and the hard cap of shape applies.
func persist(ctx context.Context, blobs blobStore, toolUseID string, res *tool.Result, limit int) {
	if res == nil || blobs == nil || toolUseID == "" {
		return
	}
	var texts []string
	chars, first := 0, -1
	for i, b := range res.Content {
		if b.Type == tool.BlockText {
			if first < 0 {
				first = i
			}
			texts = append(texts, b.Text)
			chars += utf8.RuneCountInString(b.Text)
		}
	}
	if chars+len(texts)-1 <= limit {
		return
	}
	text := strings.Join(texts, "\n")
	cut := false
	if len(text) > maxStoredBytes {
		text = text[:runeStart(text, maxStoredBytes)] + fmt.Sprintf("\n\n[Result cut: only the first %d MiB are kept.]", maxStoredBytes>>20)
		cut = true
	}
	if err := blobs.PutBlob(ctx, tool.ResultBlobKey(toolUseID), []byte(text)); err != nil {
		return
	}
	content := make([]tool.Block, 0, len(res.Content)-len(texts)+1)
	for i, b := range res.Content {
		switch {
		case i == first:
			content = append(content, tool.Block{Type: tool.BlockText, Text: persistedMessage(toolUseID, text, chars)})
		case b.Type != tool.BlockText:
			content = append(content, b)
		}
	}
	res.Content = content
	res.WithMeta("persisted_output", tool.ResultHandle(toolUseID))
	res.WithMeta("original_chars", chars)
	if cut {
		res.WithMeta("truncated", true)
	}
}

// persistedMessage is what the model reads in place of a stored result:
// its size, the handle, how to read on, and the first PreviewBytes bytes.
func persistedMessage(toolUseID, text string, chars int) string {
	lines := strings.Count(text, "\n")
	if !strings.HasSuffix(text, "\n") {
		lines++
	}
	preview, more := previewOf(text)
	handle := tool.ResultHandle(toolUseID)
	var b strings.Builder
	b.Grow(len(preview) + 512)
	b.WriteString("<persisted-output>\n")
	fmt.Fprintf(&b, "Output too large (%d characters, %d lines). Full output saved as: %s\n", chars, lines, handle)
	fmt.Fprintf(&b, "To read it, call Read with file_path %q and offset/limit in lines (the preview below is the start; continue from the line after it). Search it with Read in parts; Grep and Bash cannot see it.\n\n", handle)
	fmt.Fprintf(&b, "Preview (first %d bytes):\n", PreviewBytes)
	b.WriteString(preview)
	if more {
		b.WriteString("\n...\n")
	} else {
		b.WriteString("\n")
	}
	b.WriteString("</persisted-output>")
	return b.String()
}

// previewOf returns the first PreviewBytes bytes of text, ended at the
// last line break when that keeps more than half of them, so that the
// preview ends on a whole line; never inside a character.
func previewOf(text string) (string, bool) {
	if len(text) <= PreviewBytes {
		return text, false
	}
	p := text[:runeStart(text, PreviewBytes)]
	if i := strings.LastIndexByte(p, '\n'); i > PreviewBytes/2 {
		p = p[:i]
	}
	return p, true
}

// runeStart moves n back to the start of the character it falls in.
func runeStart(s string, n int) int {
	for n > 0 && n < len(s) && !utf8.RuneStart(s[n]) {
		n--
	}
	return n
}
