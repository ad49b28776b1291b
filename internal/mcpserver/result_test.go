package mcpserver

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool"
)

func TestResultBlocksBecomeMCPContent(t *testing.T) {
	r := &tool.Result{Content: []tool.Block{
		{Type: tool.BlockText, Text: "page 1 of 2"},
		{Type: tool.BlockDocument, MediaType: "application/pdf", Data: []byte("%PDF")},
		{Type: tool.BlockImage, MediaType: "image/png", Data: []byte("png")},
	}}
	out := resultToMCP("toolu_1", r)
	if len(out.Content) != 3 || out.IsError || out.Meta != nil {
		t.Fatalf("result = %+v", out)
	}
	if c, ok := out.Content[0].(*sdk.TextContent); !ok || c.Text != "page 1 of 2" {
		t.Errorf("text = %#v", out.Content[0])
	}
	if c, ok := out.Content[1].(*sdk.EmbeddedResource); !ok || c.Resource.URI != "toold://results/toolu_1/1" ||
		c.Resource.MIMEType != "application/pdf" || string(c.Resource.Blob) != "%PDF" {
		t.Errorf("document = %#v", out.Content[1])
	}
	if c, ok := out.Content[2].(*sdk.ImageContent); !ok || c.MIMEType != "image/png" || string(c.Data) != "png" {
		t.Errorf("image = %#v", out.Content[2])
	}
}
