package mcp

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool"
)

// modelImageTypes are the image types the Messages API accepts in a
// tool_result; other images are described in text instead.
var modelImageTypes = map[string]bool{"image/png": true, "image/jpeg": true, "image/gif": true, "image/webp": true}

// MetaStructuredContent is the Result.Meta key that carries an MCP result's
// structuredContent to the client, beside the blocks the model reads.
const MetaStructuredContent = "mcp_structured_content"

// resultFromMCP turns an MCP tool result into toold's result blocks. Content
// that no tool_result block can carry (audio, binary resources other than
// images and PDF documents) is described in a text block, so the model
// knows it exists.
func resultFromMCP(server string, res *sdk.CallToolResult) *tool.Result {
	out := &tool.Result{}
	for _, c := range res.Content {
		out.Content = append(out.Content, blockOf(server, c))
	}
	if res.StructuredContent != nil {
		out.WithMeta(MetaStructuredContent, res.StructuredContent)
		// The spec asks servers to repeat structured content as text; for
		// those that do not, the model still needs to see it.
		if len(out.Content) == 0 {
			if b, err := json.Marshal(res.StructuredContent); err == nil {
				out.Content = append(out.Content, textBlock(string(b)))
			}
		}
	}
	if res.IsError {
		out.IsError, out.Kind = true, tool.KindFailed
		if len(out.Content) == 0 {
			out.Content = append(out.Content, textBlock("The MCP tool reported an error without a message."))
		}
	}
	return out
}

func textBlock(s string) tool.Block { return tool.Block{Type: tool.BlockText, Text: s} }

func blockOf(server string, c sdk.Content) tool.Block {
	switch c := c.(type) {
	case *sdk.TextContent:
		return textBlock(c.Text)
	case *sdk.ImageContent:
		return imageBlock(c.MIMEType, c.Data, "Image")
	case *sdk.AudioContent:
		return textBlock(fmt.Sprintf("[Audio (%s, %s) returned by the tool; audio cannot be passed to the model.]",
			orUnknown(c.MIMEType), tool.HumanBytes(int64(len(c.Data)))))
	case *sdk.ResourceLink:
		return textBlock(resourceLinkText(c))
	case *sdk.EmbeddedResource:
		return resourceBlock(server, c.Resource)
	}
	return textBlock(fmt.Sprintf("[Content of type %T returned by the tool cannot be shown.]", c))
}

func imageBlock(mime string, data []byte, what string) tool.Block {
	mime = strings.ToLower(strings.TrimSpace(mime))
	if !modelImageTypes[mime] {
		return textBlock(fmt.Sprintf("[%s (%s, %s) returned by the tool; the model accepts only PNG, JPEG, GIF and WebP images.]",
			what, orUnknown(mime), tool.HumanBytes(int64(len(data)))))
	}
	return tool.Block{Type: tool.BlockImage, MediaType: mime, Data: data}
}

func resourceBlock(server string, r *sdk.ResourceContents) tool.Block {
	if r == nil {
		return textBlock("[An empty resource was returned by the tool.]")
	}
	prefix := fmt.Sprintf("[Resource from %s at %s] ", server, r.URI)
	switch {
	case r.Blob == nil:
		return textBlock(prefix + r.Text)
	case strings.HasPrefix(strings.ToLower(r.MIMEType), "image/"):
		return imageBlock(r.MIMEType, r.Blob, prefix+"Image")
	case strings.EqualFold(r.MIMEType, "application/pdf"):
		return tool.Block{Type: tool.BlockDocument, MediaType: "application/pdf", Data: r.Blob}
	}
	return textBlock(fmt.Sprintf("%sBinary content (%s, %s) that cannot be shown to the model.", prefix, orUnknown(r.MIMEType), tool.HumanBytes(int64(len(r.Blob)))))
}

func resourceLinkText(l *sdk.ResourceLink) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[Resource link: %s", l.URI)
	if l.Name != "" {
		fmt.Fprintf(&b, " (%s)", l.Name)
	}
	if l.MIMEType != "" {
		fmt.Fprintf(&b, ", %s", l.MIMEType)
	}
	b.WriteString("]")
	if l.Description != "" {
		b.WriteString(" " + l.Description)
	}
	return b.String()
}

func orUnknown(s string) string {
	if s == "" {
		return "unknown type"
	}
	return s
}
