package main

import (
	"context"
	"encoding/json"

	"github.com/anthropics/anthropic-sdk-go/v2"

	"github.com/toold/toold/client"
	tooldv1 "github.com/toold/toold/proto/toold/v1"
)

// agentLoop is the whole adoption cost: the model's tool calls run in a
// toold session until the model ends its turn.
func agentLoop(ctx context.Context, ai anthropic.Client, tc *client.Client, model, prompt string, sreq *tooldv1.CreateSessionRequest, h *client.Handlers) (*anthropic.Message, error) {
	sess, err := tc.CreateSession(ctx, sreq)
	if err != nil {
		return nil, err
	}
	defer tc.DeleteSession(context.WithoutCancel(ctx), sess.GetId())
	raw, err := tc.Tools(ctx, sess.GetId())
	var tools []anthropic.ToolUnionParam
	if err == nil {
		err = json.Unmarshal(raw, &tools)
	}
	if err != nil {
		return nil, err
	}
	messages := []anthropic.MessageParam{anthropic.NewUserMessage(anthropic.NewTextBlock(prompt))}
	for {
		msg, err := ai.Messages.New(ctx, anthropic.MessageNewParams{Model: anthropic.Model(model), MaxTokens: 4096, Tools: tools, Messages: messages})
		if err != nil {
			return nil, err
		}
		messages = append(messages, msg.ToParam())
		if msg.StopReason != anthropic.StopReasonToolUse {
			return msg, nil
		}
		raw, err := tc.Run(ctx, sess.GetId(), json.RawMessage(msg.JSON.Content.Raw()), h)
		var results []anthropic.ContentBlockParamUnion
		if err == nil {
			err = json.Unmarshal(raw, &results)
		}
		if err != nil {
			return nil, err
		}
		messages = append(messages, anthropic.NewUserMessage(results...))
	}
}
