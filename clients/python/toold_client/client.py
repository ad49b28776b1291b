"""The synchronous client."""

from __future__ import annotations

import queue
import threading
import time
from typing import Any, Dict, Iterator, List, Optional, Sequence

import grpc

from toold_client import _core, _delegation, _notifications
from toold_client._delegation import Completion
from toold_client._notifications import Notifications
from toold_client._core import CancelledError, Handlers, NO_HANDLER_MESSAGE, RetryPolicy, TooldError, UnavailableError
from toold_client._gen.toold.v1 import session_pb2, session_pb2_grpc, tool_pb2, tool_pb2_grpc

_END = object()


class Client:
    """A connection to toold.

    target is host:port. tls=True (or root_certificates, a PEM bundle)
    uses TLS; token is sent as a bearer token on every request.
    """

    def __init__(self, target: str, *, token: Optional[str] = None, tls: bool = False,
                 root_certificates: Optional[bytes] = None, server_name: Optional[str] = None,
                 retry: Optional[RetryPolicy] = None):
        self._retry = retry or RetryPolicy()
        opts = _core.channel_options(server_name, self._retry)
        if tls or root_certificates:
            self._channel = grpc.secure_channel(target, _core.channel_credentials(root_certificates), options=opts)
        else:
            self._channel = grpc.insecure_channel(target, options=opts)
        self._md = _core.bearer_metadata(token)
        self._sessions = session_pb2_grpc.SessionServiceStub(self._channel)
        self._tools = tool_pb2_grpc.ToolServiceStub(self._channel)

    def close(self) -> None:
        self._channel.close()

    def __enter__(self) -> "Client":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _unary(self, what: str, fn, req, retry: bool = True):
        attempt = 0
        while True:
            try:
                return fn(req, metadata=self._md)
            except grpc.RpcError as err:
                if not retry or err.code() not in _core.RETRYABLE or attempt + 1 >= self._retry.max_attempts:
                    raise _core.status_error(err, what) from None
                time.sleep(self._retry.backoff(attempt))
                attempt += 1

    def create_session(self, workspace: str = "", *, mode: Optional[str] = None, allow: Sequence[str] = (),
                       deny: Sequence[str] = (), ask: Sequence[str] = (),
                       additional_directories: Sequence[str] = (), env: Optional[Dict[str, str]] = None):
        """Creates a session and returns it (a toold.v1.Session; .id names it).

        Not retried: a retry after a lost answer would make a second session.
        """
        req = _core.session_request(workspace, mode, allow, deny, ask, additional_directories, env)
        return self._unary("CreateSession", self._sessions.CreateSession, req, retry=False).session

    def get_session(self, session_id: str):
        return self._unary("GetSession", self._sessions.GetSession,
                           session_pb2.GetSessionRequest(session_id=session_id)).session

    def delete_session(self, session_id: str) -> None:
        # The server accepts a repeated delete for a while, so a retry is safe.
        self._unary("DeleteSession", self._sessions.DeleteSession,
                    session_pb2.DeleteSessionRequest(session_id=session_id))

    def tools(self, session_id: str = "", *, include_deferred: bool = False) -> List[Dict[str, Any]]:
        """The Messages API tools array for the session's tool pool."""
        resp = self._unary("ListTools", self._tools.ListTools, tool_pb2.ListToolsRequest(session_id=session_id))
        return _core.tools_list(resp, include_deferred)

    def cancel(self, session_id: str, tool_use_ids: Sequence[str]) -> Dict[str, str]:
        """Cancels calls of the session by tool_use_id, on whichever toold
        replica runs them: a running call's processes are killed and it ends
        with its cancelled result; one not started ends so without running;
        one that has its result is left alone. Idempotent; it does not wait
        for the calls to stop. Returns what toold found per id: cancelling,
        finished or not_started."""
        resp = self._unary("Cancel", self._tools.Cancel, _core.cancel_request(session_id, tool_use_ids))
        return _core.cancel_states(resp)

    def complete_call(self, session_id: str, tool_use_id: str, completion: Completion) -> None:
        """Completes a delegated call of the session (a Delegation), on
        whichever toold replica it waits. TooldError NOT_FOUND when no call
        waits under that id; FAILED_PRECONDITION when it has its result."""
        self._unary("CompleteCall", self._tools.CompleteCall,
                    _delegation.complete_request(session_id, tool_use_id, completion))

    def list_notifications(self, session_id: str, after_seq: int = 0, *, limit: int = 0,
                           wait: float = 0.0) -> Notifications:
        """The session's notifications after the cursor (0: all that are
        kept), oldest first; with wait (seconds, at most 60), waits that long
        for one when there is none yet. Nothing is consumed: the same cursor
        gives the same again, so the read is retried."""
        resp = self._unary("ListNotifications", self._tools.ListNotifications,
                           _notifications.list_request(session_id, after_seq, limit, wait))
        return _notifications.page_of(resp)

    def watch_notifications(self, session_id: str, after_seq: int = 0) -> Iterator[Notifications]:
        """Yields the session's notifications after the cursor, then each
        later batch as it comes, until the session is gone (TooldError
        NOT_FOUND) or the caller stops iterating. A watch that breaks, or a
        server that shuts down, is watched again on whatever replica the
        channel reaches, after the last batch yielded: each notification is
        yielded once."""
        attempt = 0
        while True:
            call = self._tools.WatchNotifications(_notifications.watch_request(session_id, after_seq), metadata=self._md)
            try:
                for m in call:
                    attempt = 0
                    if not m.notifications and not m.dropped:
                        continue  # the first message of an empty queue, or a keepalive
                    page = _notifications.page_of(m)
                    yield page
                    after_seq = page.next_after_seq
                # toold ends a watch with a status only: an end without one
                # is a break like any other.
                if attempt + 1 >= self._retry.max_attempts:
                    raise UnavailableError("WatchNotifications: the stream ended")
                time.sleep(self._retry.backoff(attempt))
                attempt += 1
            except grpc.RpcError as err:
                if err.code() not in _core.RETRYABLE or attempt + 1 >= self._retry.max_attempts:
                    raise _core.status_error(err, "WatchNotifications") from None
                time.sleep(self._retry.backoff(attempt))
                attempt += 1
            finally:
                call.cancel()

    def run(self, session_id: str, tool_use_blocks: Sequence[Dict[str, Any]],
            handlers: Optional[Handlers] = None, *,
            cancel: Optional[threading.Event] = None) -> List[Dict[str, Any]]:
        """Runs the tool_use blocks of one assistant message and returns their
        tool_result blocks in the same order, ready for the next user message.

        A failing call is a result with is_error, not an exception; an
        exception means the request itself was refused (TooldError) or
        toold stayed unreachable (UnavailableError).

        Setting the cancel event (from another thread) cancels the
        unfinished calls in toold (their processes are killed) and raises
        CancelledError; so does any other exception but toold's own errors
        that ends the run early (KeyboardInterrupt, a handler's), which is
        then raised as is.
        """
        run = _core.Run(session_id, tool_use_blocks)
        try:
            return self._run(run, handlers or Handlers(), cancel)
        except BaseException as err:
            # toold's own refusal of the request is no reason: an id it
            # refused may be another call's.
            if not run.done() and (isinstance(err, CancelledError) or not isinstance(err, TooldError)):
                try:
                    self.cancel(session_id, run.unfinished())
                except TooldError:
                    pass  # the calls finish on their own, or with the session
            raise

    def call(self, session_id: str, tool_use_blocks: Sequence[Dict[str, Any]],
             handlers: Optional[Handlers] = None) -> List[Dict[str, Any]]:
        """run through the unary ToolService.Call: one request and one
        response, cheaper for calls that need no progress stream (reads,
        searches). The handlers see the events once the response is in;
        on_progress is not called. When a call would wait for a permission
        answer or for the orchestrator, toold refuses the unary request
        (FAILED_PRECONDITION) before that call starts, and call sends the
        blocks with run: the calls that finished are replayed, the rest
        run on the stream, with the handlers."""
        run = _core.Run(session_id, tool_use_blocks)
        h = handlers or Handlers()
        try:
            resp = self._unary("Call", self._tools.Call, run.call_request())
        except TooldError as err:
            if err.code == grpc.StatusCode.FAILED_PRECONDITION:
                return self.run(session_id, tool_use_blocks, handlers)
            raise
        for ev in resp.events:
            if run.accept(ev):
                self._dispatch(run, ev, h)
        if not run.done():
            raise TooldError(f"Call: toold's response has no result for {', '.join(run.unfinished())}", None)
        return run.ordered_results()

    def _run(self, run: _core.Run, handlers: Handlers, cancel: Optional[threading.Event]) -> List[Dict[str, Any]]:
        attempt = 0
        while not run.done():
            events: "queue.Queue" = queue.Queue()
            streams = []
            for kind, tid, req in run.plan():
                fn = self._tools.Execute if kind == "execute" else self._tools.Attach
                call = fn(req, metadata=self._md)
                streams.append(call)
                threading.Thread(target=_pump, args=(call, kind, tid, events), daemon=True).start()
            progressed, failure, open_streams = False, None, len(streams)
            try:
                while open_streams:
                    if cancel is None:
                        item = events.get()
                    else:
                        try:
                            item = events.get(timeout=0.1)
                        except queue.Empty:
                            if cancel.is_set():
                                raise CancelledError("the run was cancelled") from None
                            continue
                    if item[0] is _END:
                        open_streams -= 1
                        _, kind, tid, err = item
                        ended = run.stream_ended(kind, tid, err)
                        failure = failure or ended
                        continue
                    ev = item[1]
                    if not run.accept(ev):
                        continue
                    progressed = True
                    self._dispatch(run, ev, handlers)
            finally:
                for s in streams:
                    s.cancel()
            if run.done():
                break
            attempt = 0 if progressed else attempt + 1
            if attempt >= self._retry.max_attempts:
                raise failure or UnavailableError("toold ended the streams before every call had its result")
            time.sleep(self._retry.backoff(attempt))
        return run.ordered_results()

    def _dispatch(self, run: _core.Run, ev: Any, h: Handlers) -> None:
        if h.on_event:
            h.on_event(ev)
        p = _core.progress_of(ev)
        if p is not None and h.on_progress:
            h.on_progress(p)
        if ev.HasField("permission_request"):
            pr = ev.permission_request
            if pr.request_id in run.answered:
                return
            run.answered.add(pr.request_id)
            if h.on_permission:
                answer = h.on_permission(_core.ask_of(ev.tool_use_id, pr))
            else:
                answer = _core.deny(NO_HANDLER_MESSAGE)
            try:
                self._unary("ResolvePermission", self._sessions.ResolvePermission,
                            _core.answer_request(run.session_id, pr.request_id, answer))
            except TooldError as err:
                # Answered already (a replayed request) or no longer pending:
                # the call's own events say what became of it.
                if err.code != grpc.StatusCode.NOT_FOUND:
                    raise
        if ev.HasField("delegated_call"):
            d = _delegation.delegation_of(ev.tool_use_id, ev.delegated_call)
            if h.on_delegated:
                completion = h.on_delegated(d)
            else:
                completion = _delegation.Completion(text=_delegation.NO_DELEGATION_MESSAGE, is_error=True)
            if completion is None:
                return  # the handler completes it itself
            try:
                self.complete_call(run.session_id, ev.tool_use_id, completion)
            except TooldError as err:
                # Timed out or completed already: the call's events say.
                if err.code not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                    raise


def _pump(call, kind: str, tid: Optional[str], out: "queue.Queue") -> None:
    try:
        for ev in call:
            out.put((None, ev))
        out.put((_END, kind, tid, None))
    except grpc.RpcError as err:
        out.put((_END, kind, tid, err))


def connect(target: str, **kwargs) -> Client:
    """Client(target, **kwargs)."""
    return Client(target, **kwargs)
