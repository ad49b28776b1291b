package mcp

import (
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toold/toold/internal/tool"
)

func TestContentWithoutAMatchingBlockIsDescribed(t *testing.T) {
	res := resultFromMCP("docs", &sdk.CallToolResult{
		Content: []sdk.Content{
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///spec.pdf", MIMEType: "application/pdf", Blob: []byte("%PDF-1.7")}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///a.zip", MIMEType: "application/zip", Blob: make([]byte, 3<<20)}},
			&sdk.EmbeddedResource{Resource: &sdk.ResourceContents{URI: "file:///logo.png", MIMEType: "image/png", Blob: []byte("png")}},
			&sdk.ImageContent{MIMEType: "image/tiff", Data: []byte("tiff")},
		},
		StructuredContent: map[string]any{"ok": true},
	})
	want := []tool.Block{
		{Type: tool.BlockDocument, MediaType: "application/pdf", Data: []byte("%PDF-1.7")},
		{Type: tool.BlockText, Text: "[Resource from docs at file:///a.zip] Binary content (application/zip, 3.0 MiB) that cannot be shown to the model."},
		{Type: tool.BlockImage, MediaType: "image/png", Data: []byte("png")},
		{Type: tool.BlockText, Text: "[Image (image/tiff, 4 bytes) returned by the tool; the model accepts only PNG, JPEG, GIF and WebP images.]"},
	}
	if len(res.Content) != len(want) {
		t.Fatalf("blocks = %+v", res.Content)
	}
	for i, b := range res.Content {
		if b.Type != want[i].Type || b.Text != want[i].Text || b.MediaType != want[i].MediaType || string(b.Data) != string(want[i].Data) {
			t.Errorf("block %d = %+v, want %+v", i, b, want[i])
		}
	}
	if res.Meta[MetaStructuredContent] == nil {
		t.Error("structured content must reach the client beside the blocks")
	}
}

func TestErrorResultWithoutContentExplainsItself(t *testing.T) {
	res := resultFromMCP("db", &sdk.CallToolResult{IsError: true})
	if !res.IsError || res.Kind != tool.KindFailed || len(res.Content) != 1 || res.Content[0].Text == "" {
		t.Fatalf("result = %+v", res)
	}
}
