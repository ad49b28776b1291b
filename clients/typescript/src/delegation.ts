// Delegated calls: the tools toold hands to the orchestrator (Agent,
// SendMessage, AskUserQuestion, ExitPlanMode; see docs/delegation.md).
// The run's onDelegated handler gets a Delegation and returns a
// Completion, which the client sends with ToolService.CompleteCall;
// undefined means the handler completes the call itself (completeCall),
// later or elsewhere.

import type { JsonObject } from "@bufbuild/protobuf";
import type { DelegatedCall } from "../gen/toold/v1/delegation_pb.js";
import { PermissionMode } from "../gen/toold/v1/session_pb.js";

export interface Delegation {
  toolUseId: string;
  toolName: string;
  input: JsonObject;
  /** Agent: the session toold made for the subagent (its agentId). */
  childSessionId: string;
  /** SendMessage: the session the message is for. */
  targetSessionId: string;
  parentSessionId: string;
  agents: { sessionId: string; agentType: string; description: string }[];
  /** Agent: what the SubagentStart hooks add to the subagent's context. */
  additionalContext: string[];
  timeoutMs: number;
}

/** The orchestrator's result of a delegated call. */
export interface Completion {
  /** An Agent's report, a SendMessage reply, or a failure's reason. */
  text?: string;
  isError?: boolean;
  /** AskUserQuestion: answer (and notes) by question text. */
  answers?: Record<string, string>;
  notes?: Record<string, string>;
  /** ExitPlanMode: approved, and the mode to continue in (default "default"). */
  approved?: boolean;
  mode?: "default" | "acceptEdits" | "bypassPermissions" | "dontAsk";
  /** Agent: what the subagent spent. */
  usage?: { tokens: number; toolUses: number; durationMs: number };
  /** Agent: a background agent started; it reports later. */
  launched?: boolean;
  /** Agent, later: the report of the background agent `agentId` the call launched (text, isError, usage); it ends the agent's task once. */
  final?: boolean;
  agentId?: string;
}

export const noDelegationMessage = "This client completes no delegated calls, so the tool could not be used.";

export function delegationOf(toolUseId: string, d: DelegatedCall): Delegation {
  return {
    toolUseId, toolName: d.toolName, input: d.input ?? {},
    childSessionId: d.childSessionId, targetSessionId: d.targetSessionId, parentSessionId: d.parentSessionId,
    agents: d.agents.map((a) => ({ sessionId: a.sessionId, agentType: a.agentType, description: a.description })),
    additionalContext: [...d.additionalContext], timeoutMs: Number(d.timeoutMs),
  };
}

const modes = {
  default: PermissionMode.DEFAULT,
  acceptEdits: PermissionMode.ACCEPT_EDITS,
  bypassPermissions: PermissionMode.BYPASS_PERMISSIONS,
  dontAsk: PermissionMode.DONT_ASK,
} as const;

export function completeRequest(sessionId: string, toolUseId: string, c: Completion) {
  if (c.mode !== undefined && !(c.mode in modes)) throw new TypeError(`unknown permission mode ${JSON.stringify(c.mode)}`);
  return {
    sessionId, toolUseId, text: c.text ?? "", isError: c.isError ?? false,
    answers: c.answers ?? {}, notes: c.notes ?? {}, approved: c.approved ?? false,
    mode: c.mode ? modes[c.mode] : PermissionMode.UNSPECIFIED, launched: c.launched ?? false,
    final: c.final ?? false, agentId: c.agentId ?? "",
    usage: c.usage ? { tokens: BigInt(c.usage.tokens), toolUses: BigInt(c.usage.toolUses), durationMs: BigInt(c.usage.durationMs) } : undefined,
  };
}
