// Package client is the Go client of toold: it runs the tool_use blocks of
// an assistant message in a toold session and returns the tool_result
// blocks to send back, with exactly-once retries.
//
//	tc, _ := client.Dial("127.0.0.1:50051", client.WithToken(os.Getenv("TOOLD_TOKEN")))
//	sess, _ := tc.CreateSession(ctx, nil)
//	tools, _ := tc.Tools(ctx, sess.GetId()) // the Messages API `tools` array
//	for {
//		msg := callTheModel(tools, messages) // stop_reason, content as the API gives them
//		if msg.StopReason != "tool_use" {
//			break
//		}
//		results, _ := tc.Run(ctx, sess.GetId(), msg.Content, &client.Handlers{Permission: ask})
//		messages = append(messages, assistant(msg.Content), user(results))
//	}
//
// Run sends the calls detached and, when toold is unavailable or the
// stream breaks, resumes each unfinished call with Attach after the last
// event it got; a call it got nothing of is sent again under the same
// tool_use_id, which toold answers from its journal or by following the
// run, never by running it again. Handlers see each event once. A call that
// asks for permission is answered by Handlers.Permission through
// ResolvePermission, or denied with a message when there is none.
// Cancelling Run's context cancels its unfinished calls (Client.Cancel):
// their processes are killed, wherever they run.
//
// examples/go/agentloop is a complete loop on the official Anthropic Go SDK.
package client
