// What one run of tool_use blocks keeps: the calls, the last sequence number
// seen of each, and their results. The calls are sent detached, so a stream
// that breaks does not cancel them on the server; the client resumes each
// unfinished call with Attach after the last seq it saw, and re-sends
// Execute (same tool_use_id, which the server runs at most once) only for
// a call the server has no record of. No call is sent under a new id.

import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { ExecuteEvent, ToolResult } from "../gen/toold/v1/tool_pb.js";

/** A tool_use block as the Messages API gives it. */
export interface ToolUseBlock {
  type?: "tool_use";
  id: string;
  name: string;
  input: unknown;
}

/** A tool_result block as the Messages API takes it. */
export interface ToolResultBlock {
  type: "tool_result";
  tool_use_id: string;
  content: JsonValue;
  is_error?: boolean;
  [key: string]: JsonValue | undefined;
}

export interface Call {
  toolUseId: string;
  name: string;
  inputJson: string;
}

export function toCalls(blocks: readonly unknown[]): Call[] {
  if (!Array.isArray(blocks) || blocks.length === 0) {
    throw new TypeError("no tool_use blocks");
  }
  const seen = new Set<string>();
  return blocks.map((raw, i) => {
    const b = raw as Partial<ToolUseBlock> & { type?: string };
    if (b === null || typeof b !== "object") throw new TypeError(`tool_use block ${i} is not an object`);
    if (b.type !== undefined && b.type !== "tool_use") throw new TypeError(`block ${i} is of type ${JSON.stringify(b.type)}, not tool_use`);
    if (typeof b.id !== "string" || b.id === "") throw new TypeError(`tool_use block ${i} has no id`);
    if (typeof b.name !== "string" || b.name === "") throw new TypeError(`tool_use block ${i} (${b.id}) has no name`);
    if (seen.has(b.id)) throw new TypeError(`tool_use id ${b.id} appears twice`);
    seen.add(b.id);
    const input = b.input ?? {};
    if (typeof input !== "object" || Array.isArray(input)) throw new TypeError(`tool_use block ${i} (${b.id}): input is not an object`);
    // JSON text, so that the server checks the exact object the model made.
    return { toolUseId: b.id, name: b.name, inputJson: JSON.stringify(input) };
  });
}

export function resultBlock(toolUseId: string, r: ToolResult): ToolResultBlock {
  if (r.toolResult) {
    return { ...(r.toolResult as JsonObject), type: "tool_result", tool_use_id: toolUseId } as ToolResultBlock;
  }
  const content = r.content.flatMap((c) => (c.block.case === "text" ? [{ type: "text", text: c.block.value.text }] : []));
  const block: ToolResultBlock = { type: "tool_result", tool_use_id: toolUseId, content };
  if (r.isError) block.is_error = true;
  return block;
}

export class Run {
  readonly ids: string[];
  readonly lastSeq = new Map<string, bigint>();
  readonly results = new Map<string, ToolResultBlock>();
  readonly answered = new Set<string>();
  /** Ids to (re-)send with Execute; the others resume with Attach. */
  readonly toExecute: Set<string>;

  constructor(readonly sessionId: string, readonly calls: Call[]) {
    this.ids = calls.map((c) => c.toolUseId);
    for (const id of this.ids) this.lastSeq.set(id, 0n);
    this.toExecute = new Set(this.ids);
  }

  done(): boolean {
    return this.results.size === this.ids.length;
  }

  unfinished(): string[] {
    return this.ids.filter((id) => !this.results.has(id));
  }

  /** Records an event; false for one to skip (a keepalive, another call's,
   * or one already seen on an earlier stream). */
  accept(ev: ExecuteEvent): boolean {
    if (ev.event.case === "keepalive" || ev.event.case === undefined) return false;
    const id = ev.toolUseId;
    const last = this.lastSeq.get(id);
    if (last === undefined || this.results.has(id)) return false;
    if (ev.seq !== 0n && ev.seq <= last) return false;
    if (ev.seq !== 0n) this.lastSeq.set(id, ev.seq);
    this.toExecute.delete(id); // the server has it: a later attempt attaches
    if (ev.event.case === "result") this.results.set(id, resultBlock(id, ev.event.value));
    return true;
  }

  ordered(): ToolResultBlock[] {
    return this.ids.map((id) => this.results.get(id)!);
  }
}
