// An agent loop: the Messages API decides, toold runs the tools.
// Environment: ANTHROPIC_API_KEY, ANTHROPIC_BASE_URL (the SDK's own),
// TOOLD_ADDR (default 127.0.0.1:50051). Usage: node dist/agent-loop.js "PROMPT"
import Anthropic from "@anthropic-ai/sdk";
import { allow, connect, type Handlers } from "@toold/client";

const anthropic = new Anthropic();
const toold = connect(process.env.TOOLD_ADDR ?? "127.0.0.1:50051");
const session = await toold.createSession();
console.error(`session ${session.id} workspace ${session.workspace}`);
const tools = (await toold.tools(session.id)) as Anthropic.Tool[];
const handlers: Handlers = {
  onPermission: (ask) => (console.error(`[approve] ${ask.toolName}: ${ask.reason}`), allow()),
  onProgress: (p) => { if (p.kind === "stdout") process.stdout.write(p.data as Uint8Array); },
};
const messages: Anthropic.MessageParam[] = [{ role: "user", content: process.argv[2] ?? "List the files here." }];
for (;;) {
  const msg = await anthropic.messages.create({ model: "claude-sonnet-4-5", max_tokens: 4096, tools, messages });
  messages.push({ role: "assistant", content: msg.content });
  if (msg.stop_reason !== "tool_use") {
    console.log(msg.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join(""));
    break;
  }
  const uses = msg.content.filter((b) => b.type === "tool_use");
  const results = await toold.run(session.id, uses, handlers);
  messages.push({ role: "user", content: results as Anthropic.ToolResultBlockParam[] });
}
await toold.deleteSession(session.id);
