package mcpserver

import (
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool"
)

// Keys of a result's _meta that carry what MCP content cannot.
const (
	MetaErrorKind = "toold/error_kind"
	MetaResult    = "toold/meta"
)

// resultToMCP turns a toold result into an MCP tool result. Blocks with
// bytes that are not images (documents) travel as embedded resources.
func resultToMCP(toolUseID string, r *tool.Result) *sdk.CallToolResult {
	out := &sdk.CallToolResult{Content: make([]sdk.Content, 0, len(r.Content)), IsError: r.IsError}
	for i, b := range r.Content {
		switch {
		case b.Type == tool.BlockText:
			out.Content = append(out.Content, &sdk.TextContent{Text: b.Text})
		case b.Type == tool.BlockImage:
			out.Content = append(out.Content, &sdk.ImageContent{MIMEType: b.MediaType, Data: b.Data})
		case b.Data != nil:
			out.Content = append(out.Content, &sdk.EmbeddedResource{Resource: &sdk.ResourceContents{
				URI: fmt.Sprintf("toold://results/%s/%d", toolUseID, i), MIMEType: b.MediaType, Blob: b.Data}})
		default:
			out.Content = append(out.Content, &sdk.TextContent{Text: b.Text})
		}
	}
	// An MCP result has no place beside it for text the model reads
	// outside the result: it follows the content.
	for _, s := range r.ModelContext {
		out.Content = append(out.Content, &sdk.TextContent{Text: s})
	}
	meta := sdk.Meta{}
	if r.IsError {
		meta[MetaErrorKind] = r.Kind.String()
	}
	if len(r.Meta) > 0 {
		meta[MetaResult] = r.Meta
	}
	if len(meta) > 0 {
		out.Meta = meta
	}
	return out
}
