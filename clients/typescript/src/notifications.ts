// A session's notifications: the messages for the model that no tool call
// returns (a Monitor's events, a background command's or agent's end),
// each Claude Code's <task-notification>, read after a cursor
// (docs/notifications.md).

import { timestampDate } from "@bufbuild/protobuf/wkt";
import { NotificationKind, type Notification as NotificationPb } from "../gen/toold/v1/notification_pb.js";

export type NotificationKindName = "monitor_event" | "monitor_notice" | "monitor_ended" | "shell_ended" | "agent_ended" | "unspecified";

/** One notification. text is what goes into the conversation between tool
 * calls (Claude Code's preamble, then taskNotification). */
export interface Notification {
  seq: number;
  kind: NotificationKindName;
  taskId: string;
  toolUseId: string;
  /** completed, failed or killed, for the kinds that end a task. */
  status: string;
  text: string;
  taskNotification: string;
  createTime?: Date;
}

/** What one read brought: the notifications, oldest first; how many before
 * them the server no longer kept; the cursor for the next read. */
export interface Notifications {
  notifications: Notification[];
  dropped: number;
  nextAfterSeq: number;
}

const kinds: Record<NotificationKind, NotificationKindName> = {
  [NotificationKind.UNSPECIFIED]: "unspecified",
  [NotificationKind.MONITOR_EVENT]: "monitor_event",
  [NotificationKind.MONITOR_NOTICE]: "monitor_notice",
  [NotificationKind.MONITOR_ENDED]: "monitor_ended",
  [NotificationKind.SHELL_ENDED]: "shell_ended",
  [NotificationKind.AGENT_ENDED]: "agent_ended",
};

export function notificationOf(n: NotificationPb): Notification {
  return {
    seq: Number(n.seq), kind: kinds[n.kind] ?? "unspecified", taskId: n.taskId, toolUseId: n.toolUseId, status: n.status,
    text: n.text, taskNotification: n.taskNotification, createTime: n.createTime ? timestampDate(n.createTime) : undefined,
  };
}

export function pageOf(m: { notifications: NotificationPb[]; dropped: bigint; nextAfterSeq: bigint }): Notifications {
  return { notifications: m.notifications.map(notificationOf), dropped: Number(m.dropped), nextAfterSeq: Number(m.nextAfterSeq) };
}

/** The text Claude Code puts into the conversation for notifications that
 * arrive between tool calls: each one's text, a blank line between them.
 * Claude Code sends it as a message of its own, role system, after the
 * user message with the tool results; with the Messages API, append it to
 * that user message as a text block. */
export function notificationText(ns: readonly Notification[]): string {
  return ns.map((n) => n.text).join("\n\n");
}

/** The user message Claude Code makes of a notification that arrives once
 * the model's turn has ended: its text inside a <system-reminder>, any
 * closing tag of that in the element escaped. */
export function idleTurnText(n: Notification): string {
  const preamble = n.text.slice(0, n.text.length - n.taskNotification.length);
  const element = n.taskNotification.replace(/<\s*\/\s*system-reminder\s*>/gi, "&lt;/system-reminder&gt;");
  return `<system-reminder>\n${preamble}${element}\n</system-reminder>`;
}
