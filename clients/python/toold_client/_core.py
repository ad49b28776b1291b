"""What the sync and asyncio clients share: turning tool_use blocks into
calls, following each call's events across streams, and the retry policy.

A run sends its calls detached, so that a stream that breaks does not cancel
them on the server: the client then resumes each unfinished call with Attach
after the last sequence number it saw, and re-sends Execute (with the same
tool_use_id, which the server runs at most once) only for a call the server
has no record of. No call is ever sent under a new id.
"""

from __future__ import annotations

import json
import random
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

import grpc
from google.protobuf import json_format

from toold_client._gen.toold.v1 import session_pb2, tool_pb2


class TooldError(Exception):
    """A request toold refused, or one that could not reach it."""

    def __init__(self, message: str, code: Optional[grpc.StatusCode] = None):
        super().__init__(message)
        self.code = code


class CancelledError(TooldError):
    """run() was cancelled (its cancel event set): its unfinished calls
    were cancelled in toold, their processes killed."""


class UnavailableError(TooldError):
    """toold stayed unreachable through every retry."""


@dataclass
class RetryPolicy:
    """Exponential backoff with full jitter between attempts."""

    max_attempts: int = 8  # consecutive attempts without any new event
    initial_backoff: float = 0.1  # seconds
    max_backoff: float = 5.0
    multiplier: float = 2.0

    def backoff(self, attempt: int) -> float:
        # Full jitter: clients that lost the same server do not come back
        # in step.
        cap = min(self.max_backoff, self.initial_backoff * (self.multiplier ** attempt))
        return random.uniform(0, cap)


@dataclass
class Progress:
    """Output or a hook run while a call runs.

    kind is "stdout" or "stderr" (data: bytes), "message" (data: str) or
    "hook_run" (data: dict with event, hook, decision, status, message...).
    """

    tool_use_id: str
    kind: str
    data: Any
    replayed: bool = False


@dataclass
class PermissionAsk:
    """A call that needs an answer before it runs."""

    tool_use_id: str
    request_id: str
    tool_name: str
    input: Dict[str, Any]
    reason: str
    rule: str
    source: str
    suggested_rules: List[str] = field(default_factory=list)


@dataclass
class PermissionAnswer:
    """The answer to a PermissionAsk; see allow(), allow_for_session(), deny()."""

    allow: bool
    session: bool = False  # allow: also add the suggested rules to the session
    message: str = ""  # deny: told to the model


def allow() -> PermissionAnswer:
    return PermissionAnswer(allow=True)


def allow_for_session() -> PermissionAnswer:
    return PermissionAnswer(allow=True, session=True)


def deny(message: str = "") -> PermissionAnswer:
    return PermissionAnswer(allow=False, message=message)


@dataclass
class Handlers:
    """Callbacks of a run. For the asyncio client they may be coroutines.

    on_permission returns a PermissionAnswer (or True/False). Without it a
    permission request is denied, and the model is told why.

    on_delegated gets a Delegation and returns a Completion, sent with
    CompleteCall, or None when it completes the call itself
    (complete_call). Without it a delegated call fails at once, and the
    model is told why.
    """

    on_progress: Optional[Callable[[Progress], Any]] = None
    on_permission: Optional[Callable[[PermissionAsk], Any]] = None
    on_delegated: Optional[Callable[[Any], Any]] = None
    # Every event, raw (tool_pb2.ExecuteEvent), keepalives excepted.
    on_event: Optional[Callable[[Any], Any]] = None


NO_HANDLER_MESSAGE = (
    "denied: the call needs permission and the orchestrator has no permission "
    "handler (pass Handlers(on_permission=...) to run())"
)

RETRYABLE = (grpc.StatusCode.UNAVAILABLE,)


def to_calls(tool_use_blocks: Sequence[Dict[str, Any]]) -> List[Any]:
    """ToolCalls for the tool_use blocks of an assistant message, in order.

    The input is sent as JSON text so that the server checks the exact
    object the model produced.
    """
    calls = []
    seen = set()
    for i, b in enumerate(tool_use_blocks):
        if not isinstance(b, dict):
            # The SDK's block objects convert with model_dump().
            dump = getattr(b, "model_dump", None)
            if dump is None:
                raise ValueError(f"tool_use block {i} is not a dict")
            b = dump()
        if b.get("type", "tool_use") != "tool_use":
            raise ValueError(f"block {i} is of type {b.get('type')!r}, not tool_use")
        tid, name = b.get("id"), b.get("name")
        if not isinstance(tid, str) or not tid:
            raise ValueError(f"tool_use block {i} has no id")
        if not isinstance(name, str) or not name:
            raise ValueError(f"tool_use block {i} ({tid}) has no name")
        if tid in seen:
            raise ValueError(f"tool_use id {tid} appears twice")
        seen.add(tid)
        inp = b.get("input", {})
        if not isinstance(inp, dict):
            raise ValueError(f"tool_use block {i} ({tid}): input is not an object")
        calls.append(tool_pb2.ToolCall(tool_use_id=tid, name=name, input_json=json.dumps(inp)))
    if not calls:
        raise ValueError("no tool_use blocks")
    return calls


def tools_list(resp: Any, include_deferred: bool = False) -> List[Dict[str, Any]]:
    """The Messages API tools array: name, description and input_schema."""
    if resp.tools_json and not include_deferred:
        # The server's own array: each schema with its tool's key order.
        return json.loads(resp.tools_json)
    out = []
    for t in resp.tools:
        if t.deferred and not include_deferred:
            continue
        out.append({
            "name": t.name,
            "description": t.description,
            "input_schema": json_format.MessageToDict(t.input_schema),
        })
    return out


CANCEL_STATES = {
    tool_pb2.CANCEL_STATE_CANCELLING: "cancelling",
    tool_pb2.CANCEL_STATE_FINISHED: "finished",
    tool_pb2.CANCEL_STATE_NOT_STARTED: "not_started",
}


def cancel_request(session_id: str, tool_use_ids: Sequence[str]) -> Any:
    ids = [tool_use_ids] if isinstance(tool_use_ids, str) else list(tool_use_ids)
    return tool_pb2.CancelRequest(session_id=session_id, tool_use_ids=ids)


def cancel_states(resp: Any) -> Dict[str, str]:
    """What Cancel found per tool_use_id: cancelling, finished or not_started."""
    return {c.tool_use_id: CANCEL_STATES.get(c.state, "unspecified") for c in resp.calls}


def result_block(tool_use_id: str, result: Any) -> Dict[str, Any]:
    """The tool_result block of a result, as the Messages API takes it."""
    if result.HasField("tool_result"):
        block = json_format.MessageToDict(result.tool_result)
        block.setdefault("type", "tool_result")
        block["tool_use_id"] = tool_use_id
        return block
    content = [{"type": "text", "text": c.text.text} for c in result.content if c.HasField("text")]
    block = {"type": "tool_result", "tool_use_id": tool_use_id, "content": content}
    if result.is_error:
        block["is_error"] = True
    return block


def answer_request(session_id: str, request_id: str, answer: Any) -> Any:
    if isinstance(answer, bool):
        answer = PermissionAnswer(allow=answer)
    if not isinstance(answer, PermissionAnswer):
        raise TypeError(f"on_permission returned {type(answer).__name__}, want PermissionAnswer or bool")
    return session_pb2.ResolvePermissionRequest(
        session_id=session_id,
        request_id=request_id,
        decision=session_pb2.PERMISSION_DECISION_ALLOW if answer.allow else session_pb2.PERMISSION_DECISION_DENY,
        scope=session_pb2.PERMISSION_SCOPE_SESSION if answer.session else session_pb2.PERMISSION_SCOPE_ONCE,
        message=answer.message,
    )


def ask_of(tool_use_id: str, pr: Any) -> PermissionAsk:
    return PermissionAsk(
        tool_use_id=tool_use_id,
        request_id=pr.request_id,
        tool_name=pr.tool_name,
        input=json_format.MessageToDict(pr.input),
        reason=pr.decision.reason,
        rule=pr.decision.rule,
        source=pr.decision.source,
        suggested_rules=list(pr.suggested_rules),
    )


def progress_of(ev: Any) -> Optional[Progress]:
    if ev.HasField("progress"):
        p = ev.progress
        kind = p.WhichOneof("chunk")
        if kind is None:
            return None
        return Progress(ev.tool_use_id, kind, getattr(p, kind), ev.replayed)
    if ev.HasField("hook_run"):
        return Progress(ev.tool_use_id, "hook_run", json_format.MessageToDict(ev.hook_run, preserving_proto_field_name=True), ev.replayed)
    return None


class Run:
    """The state of one run: the calls, the last seq seen of each, results."""

    def __init__(self, session_id: str, tool_use_blocks: Sequence[Dict[str, Any]]):
        self.session_id = session_id
        self.calls = to_calls(tool_use_blocks)
        self.ids = [c.tool_use_id for c in self.calls]
        self.last_seq: Dict[str, int] = {i: 0 for i in self.ids}
        self.results: Dict[str, Dict[str, Any]] = {}
        self.answered: set = set()
        # Ids to (re-)send with Execute; the others resume with Attach.
        self.to_execute = set(self.ids)

    def done(self) -> bool:
        return len(self.results) == len(self.ids)

    def unfinished(self) -> List[str]:
        return [i for i in self.ids if i not in self.results]

    def plan(self):
        """The streams of the next attempt: one Execute for the calls the
        server may not have, one Attach for each other unfinished call."""
        execute = [c for c in self.calls if c.tool_use_id in self.to_execute and c.tool_use_id not in self.results]
        reqs = []
        if execute:
            reqs.append(("execute", None, tool_pb2.ExecuteRequest(session_id=self.session_id, calls=execute, detached=True)))
        for i in self.unfinished():
            if i not in self.to_execute:
                reqs.append(("attach", i, tool_pb2.AttachRequest(session_id=self.session_id, tool_use_id=i, after_seq=self.last_seq[i])))
        return reqs

    def accept(self, ev: Any) -> bool:
        """Records an event; False for one to skip (a keepalive, another
        call's, or one already seen on an earlier stream)."""
        if ev.HasField("keepalive"):
            return False
        tid = ev.tool_use_id
        if tid not in self.last_seq or tid in self.results:
            return False
        if ev.seq and ev.seq <= self.last_seq[tid]:
            return False
        if ev.seq:
            self.last_seq[tid] = ev.seq
        # The server has the call: a later attempt attaches to it.
        self.to_execute.discard(tid)
        if ev.HasField("result"):
            self.results[tid] = result_block(tid, ev.result)
        return True

    def stream_ended(self, kind: str, tid: str, err: Optional[grpc.RpcError]) -> Optional[TooldError]:
        """Classifies how one call's stream ended: None when it ended well
        or the call must be sent again, the retryable error to report if
        the retries run out, or raises for an error no retry can mend."""
        if err is None:
            return None
        if kind == "attach" and err.code() == grpc.StatusCode.NOT_FOUND:
            # No record of the call: the first Execute never reached the
            # server. Send it again, same id.
            self.to_execute.add(tid)
            return None
        if err.code() in RETRYABLE:
            return status_error(err, kind.capitalize())
        raise status_error(err, kind.capitalize())

    def call_request(self) -> Any:
        """The unary Call of every call of the run."""
        return tool_pb2.CallRequest(session_id=self.session_id, calls=self.calls)

    def ordered_results(self) -> List[Dict[str, Any]]:
        return [self.results[i] for i in self.ids]


def status_error(err: grpc.RpcError, what: str) -> TooldError:
    code = err.code() if hasattr(err, "code") else None
    details = err.details() if hasattr(err, "details") else str(err)
    cls = UnavailableError if code in RETRYABLE else TooldError
    name = code.name if code is not None else "UNKNOWN"
    return cls(f"{what}: {name}: {details}", code)


def bearer_metadata(token: Optional[str]):
    return (("authorization", "Bearer " + token),) if token else ()


def channel_credentials(root_certificates: Optional[bytes]):
    return grpc.ssl_channel_credentials(root_certificates=root_certificates)


def channel_options(server_name: Optional[str], retry: "RetryPolicy"):
    opts = [
        ("grpc.max_receive_message_length", 64 << 20),
        # The channel's own reconnect backoff (1 s growing to 120 s by
        # default) would outlast the retry policy: keep it in step.
        ("grpc.initial_reconnect_backoff_ms", max(1, int(retry.initial_backoff * 1000))),
        ("grpc.max_reconnect_backoff_ms", max(1, int(retry.max_backoff * 1000))),
    ]
    if server_name:
        opts.append(("grpc.ssl_target_name_override", server_name))
    return opts


def session_request(workspace: str = "", mode: Optional[str] = None, allow: Sequence[str] = (),
                    deny: Sequence[str] = (), ask: Sequence[str] = (),
                    additional_directories: Sequence[str] = (), env: Optional[Dict[str, str]] = None):
    m = session_pb2.PERMISSION_MODE_UNSPECIFIED
    if mode:
        key = "PERMISSION_MODE_" + "".join("_" + ch if ch.isupper() else ch.upper() for ch in mode).lstrip("_")
        key = key.replace("__", "_")
        try:
            m = session_pb2.PermissionMode.Value(key)
        except ValueError:
            raise ValueError(f"unknown permission mode {mode!r} (default, acceptEdits, plan, bypassPermissions, dontAsk, auto)") from None
    return session_pb2.CreateSessionRequest(
        workspace=workspace,
        mode=m,
        permissions=session_pb2.Permissions(allow=list(allow), deny=list(deny), ask=list(ask),
                                            additional_directories=list(additional_directories)),
        env=dict(env or {}),
    )


AnswerLike = Union[PermissionAnswer, bool]
