// The toold client: sessions, the Messages API tools array, and run(),
// which takes an assistant message's tool_use blocks and returns their
// tool_result blocks, answering permission requests and resuming broken
// streams without ever running a call twice.

import { Code, ConnectError, createClient, type Client as RpcClient, type Interceptor } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { JsonObject } from "@bufbuild/protobuf";
import {
  PermissionDecision,
  PermissionMode,
  PermissionScope,
  SessionService,
  type Session,
} from "../gen/toold/v1/session_pb.js";
import { CancelState, ToolService, type ExecuteEvent, type HookRun } from "../gen/toold/v1/tool_pb.js";
import { Run, toCalls, type ToolResultBlock } from "./run.js";
import { completeRequest, delegationOf, noDelegationMessage, type Completion, type Delegation } from "./delegation.js";
import { pageOf, type Notifications } from "./notifications.js";

export type { Completion, Delegation } from "./delegation.js";
export { idleTurnText, notificationText } from "./notifications.js";
export type { Notification, NotificationKindName, Notifications } from "./notifications.js";

export type { ToolResultBlock, ToolUseBlock } from "./run.js";
export type { Session } from "../gen/toold/v1/session_pb.js";

/** Exponential backoff with full jitter between attempts. */
export interface RetryPolicy {
  /** Consecutive attempts without any new event before giving up. */
  maxAttempts: number;
  initialBackoffMs: number;
  maxBackoffMs: number;
  multiplier: number;
}

export const defaultRetry: RetryPolicy = { maxAttempts: 8, initialBackoffMs: 100, maxBackoffMs: 5000, multiplier: 2 };

export interface ConnectOptions {
  /** Sent as "authorization: Bearer TOKEN" on every request. */
  token?: string;
  /** Use TLS (https). Implied by ca. */
  tls?: boolean;
  /** PEM CA bundle the server's certificate must chain to. */
  ca?: string | Buffer;
  /** Name the server certificate must carry, when it differs from the host. */
  serverName?: string;
  retry?: Partial<RetryPolicy>;
}

export interface Progress {
  toolUseId: string;
  /** stdout and stderr carry bytes, message a string, hookRun the hook's report. */
  kind: "stdout" | "stderr" | "message" | "hookRun";
  data: Uint8Array | string | HookRun;
  replayed: boolean;
}

export interface PermissionAsk {
  toolUseId: string;
  requestId: string;
  toolName: string;
  input: JsonObject;
  reason: string;
  rule: string;
  source: string;
  suggestedRules: string[];
}

export interface PermissionAnswer {
  allow: boolean;
  /** allow: also add the suggested rules to the session. */
  session?: boolean;
  /** deny: told to the model. */
  message?: string;
}

export const allow = (): PermissionAnswer => ({ allow: true });
export const allowForSession = (): PermissionAnswer => ({ allow: true, session: true });
export const deny = (message = ""): PermissionAnswer => ({ allow: false, message });

export interface Handlers {
  onProgress?: (p: Progress) => void | Promise<void>;
  /** Without it a permission request is denied, and the model is told why. */
  onPermission?: (ask: PermissionAsk) => PermissionAnswer | boolean | Promise<PermissionAnswer | boolean>;
  /** Completes a delegated call: the Completion is sent with CompleteCall;
   * undefined means the handler completes it itself (completeCall). Without
   * it a delegated call fails at once, and the model is told why. */
  onDelegated?: (d: Delegation) => Completion | undefined | Promise<Completion | undefined>;
  /** Every event, keepalives excepted. */
  onEvent?: (ev: ExecuteEvent) => void | Promise<void>;
  /** Aborting it cancels the run: its unfinished calls are cancelled in
   * toold (see Client.cancel; their processes are killed) and run()
   * rejects with the signal's reason. */
  signal?: AbortSignal;
}

export const noHandlerMessage =
  "denied: the call needs permission and the orchestrator has no permission handler (pass { onPermission } to run())";

export interface CreateSessionOptions {
  workspace?: string;
  mode?: "default" | "acceptEdits" | "plan" | "bypassPermissions" | "dontAsk" | "auto";
  allow?: string[];
  deny?: string[];
  ask?: string[];
  additionalDirectories?: string[];
  env?: Record<string, string>;
}

const modes: Record<NonNullable<CreateSessionOptions["mode"]>, PermissionMode> = {
  default: PermissionMode.DEFAULT,
  acceptEdits: PermissionMode.ACCEPT_EDITS,
  plan: PermissionMode.PLAN,
  bypassPermissions: PermissionMode.BYPASS_PERMISSIONS,
  dontAsk: PermissionMode.DONT_ASK,
  auto: PermissionMode.AUTO,
};

/** An error of a request toold refused, or one that could not reach it;
 * code is the gRPC code. */
export class TooldError extends Error {
  constructor(message: string, readonly code: Code) {
    super(message);
    this.name = "TooldError";
  }
}

function toolError(what: string, err: unknown): TooldError {
  const ce = ConnectError.from(err);
  return new TooldError(`${what}: ${Code[ce.code]}: ${ce.rawMessage}`, ce.code);
}

const retryable = (code: Code) => code === Code.Unavailable;

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const t = setTimeout(resolve, ms);
    signal?.addEventListener("abort", () => { clearTimeout(t); reject(signal.reason); }, { once: true });
  });
}

export class Client {
  private readonly sessions: RpcClient<typeof SessionService>;
  private readonly toolsSvc: RpcClient<typeof ToolService>;
  private readonly retry: RetryPolicy;

  /** target is host:port, or a URL (http:// or https://). */
  constructor(target: string, opts: ConnectOptions = {}) {
    const tls = opts.tls || opts.ca !== undefined || target.startsWith("https://");
    const baseUrl = /^https?:\/\//.test(target) ? target : `${tls ? "https" : "http"}://${target}`;
    const interceptors: Interceptor[] = [];
    if (opts.token) {
      const bearer = `Bearer ${opts.token}`;
      interceptors.push((next) => (req) => {
        req.header.set("authorization", bearer);
        return next(req);
      });
    }
    const transport = createGrpcTransport({
      baseUrl,
      interceptors,
      nodeOptions: tls ? { ca: opts.ca, servername: opts.serverName } : undefined,
    });
    this.sessions = createClient(SessionService, transport);
    this.toolsSvc = createClient(ToolService, transport);
    this.retry = { ...defaultRetry, ...opts.retry };
  }

  private backoff(attempt: number): number {
    const cap = Math.min(this.retry.maxBackoffMs, this.retry.initialBackoffMs * this.retry.multiplier ** attempt);
    return Math.random() * cap; // full jitter: clients that lost one server do not return in step
  }

  private async unary<T>(what: string, fn: () => Promise<T>, retry = true, signal?: AbortSignal): Promise<T> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await fn();
      } catch (err) {
        const code = ConnectError.from(err).code;
        if (!retry || !retryable(code) || attempt + 1 >= this.retry.maxAttempts || signal?.aborted) {
          throw toolError(what, err);
        }
        await sleep(this.backoff(attempt), signal);
      }
    }
  }

  /** Creates a session. Not retried: a retry after a lost answer would
   * make a second session. */
  async createSession(o: CreateSessionOptions = {}): Promise<Session> {
    if (o.mode !== undefined && !(o.mode in modes)) throw new TypeError(`unknown permission mode ${JSON.stringify(o.mode)}`);
    const resp = await this.unary("CreateSession", () =>
      this.sessions.createSession({
        workspace: o.workspace ?? "",
        mode: o.mode ? modes[o.mode] : PermissionMode.UNSPECIFIED,
        permissions: { allow: o.allow ?? [], deny: o.deny ?? [], ask: o.ask ?? [], additionalDirectories: o.additionalDirectories ?? [] },
        env: o.env ?? {},
      }), false);
    return resp.session!;
  }

  async getSession(sessionId: string): Promise<Session> {
    return (await this.unary("GetSession", () => this.sessions.getSession({ sessionId }))).session!;
  }

  /** The server accepts a repeated delete for a while, so it is retried. */
  async deleteSession(sessionId: string): Promise<void> {
    await this.unary("DeleteSession", () => this.sessions.deleteSession({ sessionId }));
  }

  /** The Messages API tools array: name, description, input_schema. */
  async tools(sessionId = "", o: { includeDeferred?: boolean } = {}): Promise<{ name: string; description: string; input_schema: JsonObject }[]> {
    const resp = await this.unary("ListTools", () => this.toolsSvc.listTools({ sessionId }));
    // The server's own array, each schema in its tool's key order.
    if (resp.toolsJson !== "" && !o.includeDeferred) return JSON.parse(resp.toolsJson);
    return resp.tools
      .filter((t) => o.includeDeferred || !t.deferred)
      .map((t) => ({ name: t.name, description: t.description, input_schema: t.inputSchema ?? {} }));
  }

  /** Runs the tool_use blocks of one assistant message and returns their
   * tool_result blocks in the same order. A failing call is a result with
   * is_error; a rejection means the request itself was refused, or toold
   * stayed unreachable through the retry policy. */
  async run(sessionId: string, toolUseBlocks: readonly unknown[], h: Handlers = {}): Promise<ToolResultBlock[]> {
    const run = new Run(sessionId, toCalls(toolUseBlocks));
    try {
      return await this.runLoop(run, h);
    } catch (err) {
      if (h.signal?.aborted && !run.done()) {
        // The calls are detached: without this they would run to their end.
        await this.cancel(sessionId, run.unfinished()).catch(() => undefined);
      }
      throw err;
    }
  }

  /** run through the unary ToolService.Call: one request and one
   * response, cheaper for calls that need no progress stream (reads,
   * searches). The handlers see the events once the response is in;
   * onProgress gets no output chunks. When a call would wait for a
   * permission answer or for the orchestrator, toold refuses the unary
   * request (FailedPrecondition) before that call starts, and call sends
   * the blocks with run: the calls that finished are replayed, the rest
   * run on the stream, with the handlers. */
  async call(sessionId: string, toolUseBlocks: readonly unknown[], h: Handlers = {}): Promise<ToolResultBlock[]> {
    const run = new Run(sessionId, toCalls(toolUseBlocks));
    let events: ExecuteEvent[];
    try {
      events = (await this.unary("Call", () => this.toolsSvc.call({ sessionId, calls: run.calls }, { signal: h.signal }), true, h.signal)).events;
    } catch (err) {
      if (err instanceof TooldError && err.code === Code.FailedPrecondition) return this.run(sessionId, toolUseBlocks, h);
      throw err;
    }
    for (const ev of events) {
      if (run.accept(ev)) await this.dispatch(run, ev, h);
    }
    if (!run.done()) throw new TooldError(`Call: toold's response has no result for ${run.unfinished().join(", ")}`, Code.Internal);
    return run.ordered();
  }

  /** Cancels calls of the session by tool_use_id, on whichever toold
   * replica runs them: a running call's processes are killed and it ends
   * with its cancelled result; one not started ends so without running;
   * one that has its result is left alone. Idempotent; it does not wait
   * for the calls to stop. Resolves to what toold found per id. */
  async cancel(sessionId: string, toolUseIds: readonly string[]): Promise<Record<string, "cancelling" | "finished" | "not_started" | "unspecified">> {
    const resp = await this.unary("Cancel", () => this.toolsSvc.cancel({ sessionId, toolUseIds: [...toolUseIds] }));
    const names = { [CancelState.CANCELLING]: "cancelling", [CancelState.FINISHED]: "finished", [CancelState.NOT_STARTED]: "not_started" } as const;
    const out: Record<string, "cancelling" | "finished" | "not_started" | "unspecified"> = {};
    for (const c of resp.calls) out[c.toolUseId] = c.state in names ? names[c.state as keyof typeof names] : "unspecified";
    return out;
  }

  /** Completes a delegated call of the session (a Delegation), on
   * whichever toold replica it waits. Rejects with NotFound when no call
   * waits under that id, FailedPrecondition when it has its result. */
  async completeCall(sessionId: string, toolUseId: string, c: Completion): Promise<void> {
    const req = completeRequest(sessionId, toolUseId, c);
    await this.unary("CompleteCall", () => this.toolsSvc.completeCall(req));
  }

  /** The session's notifications after the cursor afterSeq (0: all that
   * are kept), oldest first; with waitMs (at most 60000), waits that long
   * for one when there is none yet. Nothing is consumed: the same cursor
   * gives the same again, so the read is retried. */
  async listNotifications(sessionId: string, o: { afterSeq?: number; limit?: number; waitMs?: number } = {}): Promise<Notifications> {
    const resp = await this.unary("ListNotifications", () => this.toolsSvc.listNotifications({
      sessionId, afterSeq: BigInt(o.afterSeq ?? 0), limit: o.limit ?? 0, waitMs: o.waitMs ?? 0,
    }));
    return pageOf(resp);
  }

  /** Yields the session's notifications after the cursor, then each later
   * batch as it comes, until the session is gone (TooldError NotFound),
   * the signal aborts, or the caller stops iterating. A watch that breaks,
   * or a server that shuts down, is watched again on whatever replica the
   * transport reaches, after the last batch yielded: each notification is
   * yielded once. */
  async *watchNotifications(sessionId: string, o: { afterSeq?: number; signal?: AbortSignal } = {}): AsyncGenerator<Notifications> {
    let after = o.afterSeq ?? 0;
    for (let attempt = 0; ; ) {
      const abort = new AbortController();
      const onAbort = () => abort.abort(o.signal?.reason);
      o.signal?.addEventListener("abort", onAbort, { once: true });
      try {
        for await (const m of this.toolsSvc.watchNotifications({ sessionId, afterSeq: BigInt(after) }, { signal: abort.signal })) {
          attempt = 0;
          if (m.notifications.length === 0 && m.dropped === 0n) continue; // the first message of an empty queue, or a keepalive
          const page = pageOf(m);
          yield page;
          after = page.nextAfterSeq;
        }
        // toold ends a watch with a status only: an end without one is a
        // break like any other.
        if (attempt + 1 >= this.retry.maxAttempts) throw new TooldError("WatchNotifications: the stream ended", Code.Unavailable);
        await sleep(this.backoff(attempt++), o.signal);
      } catch (err) {
        if (err instanceof TooldError) throw err;
        if (o.signal?.aborted) throw o.signal.reason;
        const code = ConnectError.from(err).code;
        // Canceled without our abort: connect-node's word for an HTTP/2
        // session that went away under the stream.
        if (!(retryable(code) || code === Code.Canceled) || attempt + 1 >= this.retry.maxAttempts) throw toolError("WatchNotifications", err);
        await sleep(this.backoff(attempt++), o.signal);
      } finally {
        o.signal?.removeEventListener("abort", onAbort);
        abort.abort();
      }
    }
  }

  private async runLoop(run: Run, h: Handlers): Promise<ToolResultBlock[]> {
    const sessionId = run.sessionId;
    let attempt = 0;
    while (!run.done()) {
      const abort = new AbortController();
      const onAbort = () => abort.abort(h.signal?.reason);
      h.signal?.addEventListener("abort", onAbort, { once: true });
      let progressed = false;
      let failure: TooldError | undefined;
      let fatal: unknown;
      const pump = async (kind: "Execute" | "Attach", id: string | undefined, stream: AsyncIterable<ExecuteEvent>) => {
        try {
          for await (const ev of stream) {
            if (!run.accept(ev)) continue;
            progressed = true;
            await this.dispatch(run, ev, h);
          }
        } catch (err) {
          if (fatal !== undefined || abort.signal.aborted && !h.signal?.aborted) return;
          const code = ConnectError.from(err).code;
          if (kind === "Attach" && code === Code.NotFound) {
            // No record of the call: the first Execute never reached the
            // server. It is sent again, under the same id.
            run.toExecute.add(id!);
          } else if (retryable(code) || code === Code.Canceled) {
            // Canceled without our abort: connect-node's word for an HTTP/2
            // session that went away under the stream.
            failure ??= toolError(kind, err);
          } else {
            // A handler's own error is passed on as it is.
            fatal = h.signal?.aborted ? h.signal.reason : err instanceof ConnectError ? toolError(kind, err) : err;
            abort.abort();
          }
        }
      };
      const pumps: Promise<void>[] = [];
      const execute = run.calls.filter((c) => run.toExecute.has(c.toolUseId) && !run.results.has(c.toolUseId));
      if (execute.length > 0) {
        pumps.push(pump("Execute", undefined, this.toolsSvc.execute({ sessionId, calls: execute, detached: true }, { signal: abort.signal })));
      }
      for (const id of run.unfinished()) {
        if (run.toExecute.has(id)) continue;
        const stream = this.toolsSvc.attach({ sessionId, toolUseId: id, afterSeq: run.lastSeq.get(id)! }, { signal: abort.signal });
        pumps.push(pump("Attach", id, stream));
      }
      await Promise.all(pumps);
      h.signal?.removeEventListener("abort", onAbort);
      abort.abort();
      if (fatal !== undefined) throw fatal;
      if (run.done()) break;
      attempt = progressed ? 0 : attempt + 1;
      if (attempt >= this.retry.maxAttempts) {
        throw failure ?? new TooldError("toold ended the streams before every call had its result", Code.Unavailable);
      }
      await sleep(this.backoff(attempt), h.signal);
    }
    return run.ordered();
  }

  private async dispatch(run: Run, ev: ExecuteEvent, h: Handlers): Promise<void> {
    await h.onEvent?.(ev);
    const id = ev.toolUseId;
    const e = ev.event;
    if (e.case === "progress" && e.value.chunk.case !== undefined && h.onProgress) {
      await h.onProgress({ toolUseId: id, kind: e.value.chunk.case, data: e.value.chunk.value, replayed: ev.replayed });
    } else if (e.case === "hookRun" && h.onProgress) {
      await h.onProgress({ toolUseId: id, kind: "hookRun", data: e.value, replayed: ev.replayed });
    } else if (e.case === "permissionRequest") {
      const pr = e.value;
      if (run.answered.has(pr.requestId)) return;
      run.answered.add(pr.requestId);
      let answer: PermissionAnswer | boolean = deny(noHandlerMessage);
      if (h.onPermission) {
        answer = await h.onPermission({
          toolUseId: id, requestId: pr.requestId, toolName: pr.toolName, input: pr.input ?? {},
          reason: pr.decision?.reason ?? "", rule: pr.decision?.rule ?? "", source: pr.decision?.source ?? "",
          suggestedRules: pr.suggestedRules,
        });
      }
      const a = typeof answer === "boolean" ? { allow: answer } : answer;
      try {
        await this.unary("ResolvePermission", () => this.sessions.resolvePermission({
          sessionId: run.sessionId,
          requestId: pr.requestId,
          decision: a.allow ? PermissionDecision.ALLOW : PermissionDecision.DENY,
          scope: a.session ? PermissionScope.SESSION : PermissionScope.ONCE,
          message: a.message ?? "",
        }));
      } catch (err) {
        // Answered already, or no longer pending: the call's own events
        // say what became of it.
        if (!(err instanceof TooldError && err.code === Code.NotFound)) throw err;
      }
    } else if (e.case === "delegatedCall") {
      const c = h.onDelegated ? await h.onDelegated(delegationOf(id, e.value)) : { text: noDelegationMessage, isError: true };
      if (c === undefined) return; // the handler completes it itself
      try {
        await this.completeCall(run.sessionId, id, c);
      } catch (err) {
        // Timed out or completed already: the call's own events say.
        if (!(err instanceof TooldError && (err.code === Code.NotFound || err.code === Code.FailedPrecondition))) throw err;
      }
    }
  }
}

export function connect(target: string, opts: ConnectOptions = {}): Client {
  return new Client(target, opts);
}
