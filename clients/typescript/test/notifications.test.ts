import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { connect, idleTurnText, notificationText, TooldError, type Notification } from "../src/index.js";
import { Proxy, Toold } from "./harness.js";

const monitor = {
  type: "tool_use" as const, id: "toolu_m", name: "Monitor",
  input: { command: "echo one; sleep 1; echo two; sleep 1; echo three", description: "count", timeout_ms: 60000 },
};
const background = {
  type: "tool_use" as const, id: "toolu_b", name: "Bash",
  input: { command: "sleep 1; exit 2", description: "Fail later", run_in_background: true },
};
const ended = (ns: Notification[], id: string) => ns.some((n) => n.toolUseId === id && n.status !== "");

describe("notifications against a real toold", () => {
  let toold: Toold;
  before(async () => { toold = await new Toold().start(); });
  after(async () => { await toold.stop(); });

  test("a watch cut in the middle resumes: each notification once, in order", async () => {
    const proxy = await new Proxy(toold.addr).listen();
    try {
      const c = connect(proxy.addr, { retry: { maxAttempts: 50, initialBackoffMs: 20, maxBackoffMs: 200 } });
      const s = await c.createSession({ mode: "bypassPermissions" });
      const started = await c.run(s.id, [monitor, background]);
      assert.match(JSON.stringify(started[0].content), /Monitor started \(task /);
      const got: Notification[] = [];
      for await (const page of c.watchNotifications(s.id)) {
        if (got.length === 0) proxy.cut();
        got.push(...page.notifications);
        if (ended(got, "toolu_m") && ended(got, "toolu_b")) break;
      }
      assert.deepEqual(got.map((n) => n.seq), got.map((_, i) => i + 1));
      const events = got.filter((n) => n.kind === "monitor_event").map((n) => n.taskNotification);
      assert.equal(events.length, 2);
      assert.match(events[0], /<event>one<\/event>/);
      assert.match(events[1], /<event>two<\/event>/);
      const end = got.find((n) => n.kind === "shell_ended")!;
      assert.equal(end.status, "failed");
      assert.match(end.taskNotification, /<summary>Background command "Fail later" failed with exit code 2<\/summary>/);
      assert.ok(proxy.accepted >= 2, "the client did not reconnect");
      const again = await c.listNotifications(s.id);
      assert.deepEqual(again.notifications.map((n) => n.seq), got.map((n) => n.seq));
      assert.equal(again.nextAfterSeq, got.length);
      const text = notificationText(again.notifications.slice(0, 2));
      assert.ok(text.startsWith("[SYSTEM NOTIFICATION - NOT USER INPUT]\n"));
      assert.match(text, /<\/task-notification>\n\n\[SYSTEM NOTIFICATION/);
      const idle = idleTurnText(again.notifications[0]);
      assert.ok(idle.startsWith("<system-reminder>\n[SYSTEM NOTIFICATION") && idle.endsWith("</task-notification>\n</system-reminder>"));
      await c.deleteSession(s.id);
      await assert.rejects(async () => {
        for await (const _ of c.watchNotifications(s.id)) { /* nothing */ }
      }, (err: unknown) => err instanceof TooldError && /NotFound/.test(err.message));
    } finally {
      await proxy.close();
    }
  });
});
