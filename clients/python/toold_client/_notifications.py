"""What the sync and asyncio clients share for a session's notifications:
the messages for the model that no tool call returns (a Monitor's events,
a background command's or agent's end), each Claude Code's
<task-notification>, read after a cursor (docs/notifications.md)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, List

from toold_client._gen.toold.v1 import notification_pb2

_KIND_PREFIX = "NOTIFICATION_KIND_"


@dataclass
class Notification:
    """One notification. text is what goes into the conversation between
    tool calls (Claude Code's preamble, then task_notification)."""

    seq: int
    kind: str  # monitor_event, monitor_notice, monitor_ended, shell_ended, agent_ended
    task_id: str
    tool_use_id: str
    status: str  # completed, failed or killed, for the kinds that end a task
    text: str
    task_notification: str
    create_time: float  # seconds since the epoch


@dataclass
class Notifications:
    """What one read brought: the notifications, oldest first; how many
    before them the server no longer kept; the cursor for the next read."""

    notifications: List[Notification] = field(default_factory=list)
    dropped: int = 0
    next_after_seq: int = 0


def notification_of(n: Any) -> Notification:
    kind = notification_pb2.NotificationKind.Name(n.kind)
    return Notification(
        seq=n.seq, kind=kind[len(_KIND_PREFIX):].lower() if kind.startswith(_KIND_PREFIX) else kind,
        task_id=n.task_id, tool_use_id=n.tool_use_id, status=n.status, text=n.text,
        task_notification=n.task_notification, create_time=n.create_time.ToNanoseconds() / 1e9)


def page_of(resp: Any) -> Notifications:
    return Notifications([notification_of(n) for n in resp.notifications], resp.dropped, resp.next_after_seq)


def list_request(session_id: str, after_seq: int, limit: int, wait: float) -> Any:
    return notification_pb2.ListNotificationsRequest(session_id=session_id, after_seq=after_seq, limit=limit,
                                                     wait_ms=int(wait * 1000))


def watch_request(session_id: str, after_seq: int) -> Any:
    return notification_pb2.WatchNotificationsRequest(session_id=session_id, after_seq=after_seq)


def notification_text(notifications: List[Notification]) -> str:
    """The text Claude Code puts into the conversation for notifications
    that arrive between tool calls: each one's text, a blank line between
    them. Claude Code sends it as a message of its own, role system, after
    the user message with the tool results; with the Messages API, append
    it to that user message as a text block."""
    return "\n\n".join(n.text for n in notifications)


_REMINDER_END = re.compile(r"<\s*/\s*system-reminder\s*>", re.IGNORECASE)


def idle_turn_text(n: Notification) -> str:
    """The user message Claude Code makes of a notification that arrives
    once the model's turn has ended: its text inside a <system-reminder>,
    any closing tag of that in the element escaped."""
    preamble = n.text[: len(n.text) - len(n.task_notification)]
    element = _REMINDER_END.sub("&lt;/system-reminder&gt;", n.task_notification)
    return "<system-reminder>\n" + preamble + element + "\n</system-reminder>"
