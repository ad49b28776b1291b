import assert from "node:assert/strict";
import { createHash } from "node:crypto";
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { allow, connect, deny, TooldError, type Progress, type ToolResultBlock } from "../src/index.js";
import { Proxy, Toold, freePort } from "./harness.js";

const bash = (id: string, command: string) => ({ type: "tool_use" as const, id, name: "Bash", input: { command } });
const textOf = (b: ToolResultBlock) =>
  typeof b.content === "string" ? b.content : (b.content as { text?: string }[]).map((c) => c.text ?? "").join("");

describe("client against a real toold", () => {
  let toold: Toold;
  before(async () => { toold = await new Toold().start(); });
  after(async () => { await toold.stop(); });

  test("tools is the Messages API array", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession();
    const tools = await c.tools(s.id);
    const b = tools.find((t) => t.name === "Bash");
    assert.ok(b);
    for (const t of tools) assert.deepEqual(Object.keys(t).sort(), ["description", "input_schema", "name"]);
    assert.equal(b.input_schema.type, "object");
    await c.deleteSession(s.id);
  });

  test("sessions: get and delete", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession();
    assert.equal((await c.getSession(s.id)).id, s.id);
    await c.deleteSession(s.id);
    await assert.rejects(c.getSession(s.id), (e: unknown) => e instanceof TooldError && /NotFound/.test(e.message));
  });

  test("results in order, failures in band, progress streamed", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession({ mode: "bypassPermissions" });
    const out: Progress[] = [];
    const r = await c.run(s.id, [bash("toolu_a", "echo alpha"), bash("toolu_b", "exit 3"), bash("toolu_c", "echo gamma")],
      { onProgress: (p) => { out.push(p); } });
    assert.deepEqual(r.map((b) => b.tool_use_id), ["toolu_a", "toolu_b", "toolu_c"]);
    assert.match(textOf(r[0]), /alpha/);
    assert.equal(r[1].is_error, true);
    assert.match(textOf(r[2]), /gamma/);
    const stdout = out.filter((p) => p.kind === "stdout" && p.toolUseId === "toolu_a").map((p) => Buffer.from(p.data as Uint8Array).toString()).join("");
    assert.equal(stdout, "alpha\n");
  });

  test("permission asks: answered by the handler, denied without one", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession({ mode: "bypassPermissions", ask: ["Bash(touch *)"] });
    const asks: string[] = [];
    const r = await c.run(s.id, [bash("toolu_y", "touch yes.txt"), bash("toolu_n", "touch no.txt")], {
      onPermission: async (a) => { asks.push(a.input.command as string); return a.input.command === "touch yes.txt" ? allow() : deny("not today"); },
    });
    assert.deepEqual(asks, ["touch yes.txt", "touch no.txt"]);
    assert.notEqual(r[0].is_error, true);
    assert.equal(r[1].is_error, true);
    assert.match(textOf(r[1]), /not today/);
    assert.ok(existsSync(path.join(s.workspace, "yes.txt")));
    assert.ok(!existsSync(path.join(s.workspace, "no.txt")));
    const r2 = await c.run(s.id, [bash("toolu_h", "touch nohandler.txt")]);
    assert.match(textOf(r2[0]), /no permission handler/);
    assert.ok(!existsSync(path.join(s.workspace, "nohandler.txt")));
  });

  test("the unary call, and its fallback to the stream when a call asks", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession({ mode: "bypassPermissions", ask: ["Bash(touch *)"] });
    const one = await c.call(s.id, [bash("toolu_u1", "echo ran >> u.log; cat u.log")]);
    assert.match(textOf(one[0]), /ran/);
    const asks: string[] = [];
    const r = await c.call(s.id, [bash("toolu_u2", "echo two >> u.log"), bash("toolu_u3", "touch made.txt"), bash("toolu_u4", "ls made.txt")], {
      onPermission: async (a) => { asks.push(a.toolUseId); return allow(); },
    });
    assert.deepEqual(r.map((b) => b.tool_use_id), ["toolu_u2", "toolu_u3", "toolu_u4"]);
    assert.deepEqual(asks, ["toolu_u3"]);
    assert.notEqual(r[2].is_error, true);
    assert.equal(readFileSync(path.join(s.workspace, "u.log"), "utf8"), "ran\ntwo\n");
  });

  test("a retry under the same id replays instead of running", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession({ mode: "bypassPermissions" });
    const block = bash("toolu_once", "echo ran >> once.log; cat once.log");
    assert.deepEqual(await c.run(s.id, [block]), await c.run(s.id, [block]));
    assert.equal(readFileSync(path.join(s.workspace, "once.log"), "utf8"), "ran\n");
  });

  test("aborting the signal cancels the call in toold: the sleep is killed", async () => {
    const c = connect(toold.addr);
    const s = await c.createSession({ mode: "bypassPermissions" });
    // The sleep is spelt through a variable so that pgrep finds the sleep
    // itself, not a process whose command line holds the command text.
    const block = bash("toolu_tsleep", "echo started; S=319.5; sleep $S; echo slept");
    const ac = new AbortController();
    await assert.rejects(c.run(s.id, [block], { signal: ac.signal, onProgress: () => ac.abort(new Error("caller gave up")) }), /caller gave up/);
    // The call ended cancelled in toold: running it again replays that
    // result (it is not run again).
    const [again] = await c.run(s.id, [block]);
    assert.equal(again.is_error, true);
    assert.equal(textOf(again), "The call was cancelled before it finished.");
    let alive = true;
    for (let i = 0; i < 100 && alive; i++) {
      try { execFileSync("pgrep", ["-f", "sleep 319[.]5"]); await new Promise((r) => setTimeout(r, 100)); } catch { alive = false; }
    }
    assert.equal(alive, false, "the sleep still runs");
    assert.deepEqual(await c.cancel(s.id, ["toolu_tsleep", "toolu_tother"]), { toolu_tsleep: "finished", toolu_tother: "not_started" });
    await c.deleteSession(s.id);
  });

  test("bad blocks are refused before anything is sent", async () => {
    const c = connect(toold.addr);
    for (const [blocks, want] of [[[], /no tool_use/], [[{ type: "text", text: "x" }], /not tool_use/],
      [[{ type: "tool_use", name: "Bash", input: {} }], /no id/], [[bash("d", "true"), bash("d", "true")], /twice/]] as const) {
      await assert.rejects(c.run("s", blocks as unknown as unknown[]), want);
    }
  });

  test("unavailable at first: retried, under the same id", async () => {
    const s = await connect(toold.addr).createSession({ mode: "bypassPermissions" });
    const proxy = await new Proxy(toold.addr, 3).listen();
    try {
      const c = connect(proxy.addr, { retry: { maxAttempts: 200, initialBackoffMs: 50, maxBackoffMs: 200 } });
      const r = await c.run(s.id, [bash("toolu_r", "echo ran >> r.log; cat r.log")]);
      assert.equal(textOf(r[0]).trim(), "ran");
      assert.equal(proxy.refuse, 0);
    } finally {
      await proxy.close();
    }
  });

  test("a stream cut mid-call resumes: the call runs once, the output is whole", async () => {
    const proxy = await new Proxy(toold.addr).listen();
    try {
      await runDropped(proxy);
    } finally {
      await proxy.close();
    }
  });
});

export async function runDropped(proxy: Proxy): Promise<void> {
  const c = connect(proxy.addr);
  const s = await c.createSession({ mode: "bypassPermissions" });
  let cut = false;
  const out: string[] = [];
  const r = await c.run(s.id, [bash("toolu_drop", "echo run >> runs.log; echo first; while [ ! -f go ]; do sleep 0.05; done; echo second")], {
    onProgress: (p) => {
      if (p.kind !== "stdout") return;
      out.push(Buffer.from(p.data as Uint8Array).toString());
      if (!cut && out.join("").includes("first")) {
        cut = true;
        proxy.cut();
        writeFileSync(path.join(s.workspace, "go"), "");
      }
    },
  });
  assert.ok(cut);
  assert.ok(proxy.accepted >= 2, "the client did not reconnect");
  assert.equal(out.join(""), "first\nsecond\n");
  assert.equal(textOf(r[0]).trim(), "first\nsecond");
  assert.equal(readFileSync(path.join(s.workspace, "runs.log"), "utf8"), "run\n");
  await c.deleteSession(s.id);
}

test("unreachable: gives up after the retry policy with Unavailable", async () => {
  const c = connect(`127.0.0.1:${await freePort()}`, { retry: { maxAttempts: 3, initialBackoffMs: 10 } });
  await assert.rejects(c.run("s", [bash("toolu_u", "true")]), (e: unknown) => e instanceof TooldError && /Unavailable/.test(e.message));
  await assert.rejects(c.getSession("s"), /Unavailable/);
});

describe("TLS and a bearer token", () => {
  let toold: Toold;
  let ca: string;
  const token = "s3cret-token";
  before(async () => {
    const d = mkdtempSync(path.join(tmpdir(), "toold-tls-"));
    const cert = path.join(d, "cert.pem"), key = path.join(d, "key.pem"), tokens = path.join(d, "tokens");
    execFileSync("openssl", ["req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes", "-keyout", key, "-out", cert,
      "-days", "1", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1"], { stdio: "ignore" });
    writeFileSync(tokens, `team-a ${createHash("sha256").update(token).digest("hex")}\n`);
    ca = readFileSync(cert, "utf8");
    toold = await new Toold(["--auth", "token", "--auth-tokens", tokens, "--tls-cert", cert, "--tls-key", key]).start();
  });
  after(async () => { await toold.stop(); });

  test("works with the token, refuses a wrong one", async () => {
    const c = connect(toold.addr, { token, ca });
    const s = await c.createSession({ mode: "bypassPermissions" });
    assert.match(textOf((await c.run(s.id, [bash("toolu_t", "echo hello")]))[0]), /hello/);
    await assert.rejects(connect(toold.addr, { token: "wrong", ca }).createSession(), (e: unknown) => e instanceof TooldError && /Unauthenticated/.test(e.message));
  });
});
