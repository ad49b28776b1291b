"""Delegated calls: the tools toold hands to the orchestrator (Agent,
SendMessage, AskUserQuestion, ExitPlanMode; see docs/delegation.md). The
run's on_delegated handler gets a Delegation and returns a Completion,
which the client sends with ToolService.CompleteCall; None means the
handler completes the call itself (complete_call), later or elsewhere."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

from google.protobuf import json_format

from toold_client._gen.toold.v1 import delegation_pb2, session_pb2


@dataclass
class Delegation:
    """A call the orchestrator completes."""

    tool_use_id: str
    tool_name: str
    input: Dict[str, Any]
    # Agent: the session toold made for the subagent (its agentId).
    child_session_id: str = ""
    # SendMessage: the session the message is for.
    target_session_id: str = ""
    parent_session_id: str = ""
    agents: List[Dict[str, str]] = field(default_factory=list)
    # Agent: what the SubagentStart hooks add to the subagent's context.
    additional_context: List[str] = field(default_factory=list)
    timeout_ms: int = 0


@dataclass
class Completion:
    """The orchestrator's result of a delegated call.

    text: an Agent's report, a SendMessage reply, or a failure's reason
    (is_error). answers/notes: AskUserQuestion's, by question text.
    approved/mode: ExitPlanMode's (mode: the one to continue in, default
    "default"). usage: an Agent's {"tokens", "tool_uses", "duration_ms"}.
    launched: a background Agent started. final/agent_id: later, the
    report of the background agent agent_id that the call launched (text,
    is_error, usage); it ends the agent's task once.
    """

    text: str = ""
    is_error: bool = False
    answers: Dict[str, str] = field(default_factory=dict)
    notes: Dict[str, str] = field(default_factory=dict)
    approved: bool = False
    mode: Optional[str] = None
    usage: Optional[Dict[str, int]] = None
    launched: bool = False
    final: bool = False
    agent_id: str = ""


NO_DELEGATION_MESSAGE = "This client completes no delegated calls, so the tool could not be used."


def delegation_of(tool_use_id: str, d: Any) -> Delegation:
    return Delegation(
        tool_use_id=tool_use_id, tool_name=d.tool_name,
        input=json_format.MessageToDict(d.input) if d.HasField("input") else {},
        child_session_id=d.child_session_id, target_session_id=d.target_session_id,
        parent_session_id=d.parent_session_id,
        agents=[{"session_id": a.session_id, "agent_type": a.agent_type, "description": a.description} for a in d.agents],
        additional_context=list(d.additional_context), timeout_ms=d.timeout_ms,
    )


def _mode(mode: Optional[str]) -> int:
    if not mode:
        return session_pb2.PERMISSION_MODE_UNSPECIFIED
    key = "PERMISSION_MODE_" + "".join("_" + ch if ch.isupper() else ch.upper() for ch in mode).lstrip("_")
    try:
        return session_pb2.PermissionMode.Value(key.replace("__", "_"))
    except ValueError:
        raise ValueError(f"unknown permission mode {mode!r} (default, acceptEdits, bypassPermissions, dontAsk)") from None


def complete_request(session_id: str, tool_use_id: str, c: Completion) -> Any:
    req = delegation_pb2.CompleteCallRequest(
        session_id=session_id, tool_use_id=tool_use_id, text=c.text, is_error=c.is_error,
        answers=dict(c.answers), notes=dict(c.notes), approved=c.approved, mode=_mode(c.mode),
        launched=c.launched, final=c.final, agent_id=c.agent_id,
    )
    if c.usage is not None:
        req.usage.CopyFrom(delegation_pb2.AgentUsage(**c.usage))
    return req
