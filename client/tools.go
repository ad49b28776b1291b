package client

import (
	"context"
	"encoding/json"
	"fmt"

	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// Tool is one entry of the Messages API `tools` array.
type Tool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"input_schema"`
}

// Tools returns the tools the session sees as the Messages API `tools`
// array, in toold's stable order (so that prompts stay cacheable). Pass it
// to messages.create as is. Deferred tools are left out: they have no
// schema, and the model finds them with the ToolSearch tool.
//
// It is toold's own array (ListToolsResponse.tools_json), each schema in
// the key order its tool declares; a toold without it gets the array
// rebuilt from the tool definitions.
func (c *Client) Tools(ctx context.Context, sessionID string) (json.RawMessage, error) {
	resp, err := c.listTools(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if tj := resp.GetToolsJson(); tj != "" {
		return json.RawMessage(tj), nil
	}
	tools, err := definitions(resp)
	if err != nil {
		return nil, err
	}
	return json.Marshal(tools)
}

// ToolDefinitions is Tools as Go values.
func (c *Client) ToolDefinitions(ctx context.Context, sessionID string) ([]Tool, error) {
	resp, err := c.listTools(ctx, sessionID)
	if err != nil {
		return nil, err
	}
	if tj := resp.GetToolsJson(); tj != "" {
		var tools []Tool
		if err := json.Unmarshal([]byte(tj), &tools); err != nil {
			return nil, fmt.Errorf("ListTools' tools_json: %w", err)
		}
		return tools, nil
	}
	return definitions(resp)
}

func (c *Client) listTools(ctx context.Context, sessionID string) (*tooldv1.ListToolsResponse, error) {
	var resp *tooldv1.ListToolsResponse
	err := c.retry(ctx, func(ctx context.Context) (err error) {
		resp, err = c.tools.ListTools(ctx, &tooldv1.ListToolsRequest{SessionId: sessionID})
		return err
	})
	return resp, err
}

// definitions rebuilds the array from the tool definitions.
func definitions(resp *tooldv1.ListToolsResponse) ([]Tool, error) {
	tools := make([]Tool, 0, len(resp.GetTools()))
	for _, d := range resp.GetTools() {
		if d.GetDeferred() {
			continue
		}
		schema := json.RawMessage(`{"type":"object"}`)
		if d.GetInputSchema() != nil {
			b, err := d.GetInputSchema().MarshalJSON()
			if err != nil {
				return nil, err
			}
			schema = b
		}
		tools = append(tools, Tool{Name: d.GetName(), Description: d.GetDescription(), InputSchema: schema})
	}
	return tools, nil
}
