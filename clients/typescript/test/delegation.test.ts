import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { connect, TooldError, type Delegation, type ToolResultBlock } from "../src/index.js";
import { Toold } from "./harness.js";

const textOf = (b: ToolResultBlock) =>
  typeof b.content === "string" ? b.content : (b.content as { text?: string }[]).map((c) => c.text ?? "").join("");

describe("delegated calls", () => {
  let toold: Toold;
  before(async () => { toold = await new Toold(["--delegated-tools"]).start(); });
  after(async () => { await toold.stop(); });

  test("a subagent's round trip: the child session runs the subagent's Bash, the report comes back once", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession({ mode: "bypassPermissions" });
    const seen: Delegation[] = [];
    const agent = { type: "tool_use" as const, id: "toolu_tag", name: "Agent", input: { description: "Say hi", prompt: "Say hi", run_in_background: false } };
    const [r] = await c.run(s.id, [agent], {
      onDelegated: async (d) => {
        seen.push(d);
        const [out] = await c.run(d.childSessionId, [{ type: "tool_use", id: "toolu_tsub", name: "Bash", input: { command: "echo hi from the subagent" } }]);
        return { text: textOf(out).trim(), usage: { tokens: 7, toolUses: 1, durationMs: 30 } };
      },
    });
    assert.equal(seen.length, 1);
    assert.equal(seen[0].toolName, "Agent");
    assert.ok(seen[0].childSessionId);
    assert.ok(!r.is_error);
    assert.ok(textOf(r).includes(`  hi from the subagent\nagentId: ${seen[0].childSessionId}`), textOf(r));
    await assert.rejects(c.completeCall(s.id, "toolu_tag", { text: "again" }),
      (e: unknown) => e instanceof TooldError && /result already/.test(e.message));
    const [none] = await c.run(s.id, [{ ...agent, id: "toolu_tag2" }]);
    assert.ok(none.is_error);
    assert.match(textOf(none), /completes no delegated calls/);
  });

  test("AskUserQuestion's answers and ExitPlanMode's approval, which switches the mode", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession({ mode: "plan" });
    const ask = { type: "tool_use" as const, id: "toolu_tq", name: "AskUserQuestion", input: { questions: [
      { question: "Which color?", header: "Color", multiSelect: false, options: [{ label: "Red", description: "warm" }, { label: "Blue", description: "cool" }] }] } };
    const onDelegated = (d: Delegation) => d.toolName === "AskUserQuestion"
      ? { answers: { "Which color?": "Blue" } }
      : { approved: true, mode: "acceptEdits" as const };
    const [a] = await c.run(s.id, [ask], { onDelegated });
    assert.ok(textOf(a).startsWith('The user answered: "Which color?"="Blue". '), textOf(a));
    const [p] = await c.run(s.id, [{ type: "tool_use", id: "toolu_tp", name: "ExitPlanMode", input: {} }], { onDelegated });
    assert.equal(textOf(p), "User has approved exiting plan mode. You can now proceed.");
    assert.equal((await c.getSession(s.id)).mode, 2); // PERMISSION_MODE_ACCEPT_EDITS
  });
});
