"""The asyncio client, on grpc.aio. Handlers may be plain functions or
coroutine functions."""

from __future__ import annotations

import asyncio
import inspect
from typing import Any, AsyncIterator, Dict, List, Optional, Sequence

import grpc
from grpc import aio as grpc_aio

from toold_client import _core, _delegation, _notifications
from toold_client._delegation import Completion
from toold_client._notifications import Notifications
from toold_client._core import Handlers, NO_HANDLER_MESSAGE, RetryPolicy, TooldError, UnavailableError
from toold_client._gen.toold.v1 import session_pb2, session_pb2_grpc, tool_pb2, tool_pb2_grpc

_END = object()


async def _maybe_await(v):
    return await v if inspect.isawaitable(v) else v


class AsyncClient:
    """The asyncio twin of Client, with the same arguments."""

    def __init__(self, target: str, *, token: Optional[str] = None, tls: bool = False,
                 root_certificates: Optional[bytes] = None, server_name: Optional[str] = None,
                 retry: Optional[RetryPolicy] = None):
        self._retry = retry or RetryPolicy()
        opts = _core.channel_options(server_name, self._retry)
        if tls or root_certificates:
            self._channel = grpc_aio.secure_channel(target, _core.channel_credentials(root_certificates), options=opts)
        else:
            self._channel = grpc_aio.insecure_channel(target, options=opts)
        self._md = _core.bearer_metadata(token)
        self._sessions = session_pb2_grpc.SessionServiceStub(self._channel)
        self._tools = tool_pb2_grpc.ToolServiceStub(self._channel)

    async def close(self) -> None:
        await self._channel.close()

    async def __aenter__(self) -> "AsyncClient":
        return self

    async def __aexit__(self, *exc) -> None:
        await self.close()

    async def _unary(self, what: str, fn, req, retry: bool = True):
        attempt = 0
        while True:
            try:
                return await fn(req, metadata=self._md)
            except grpc.RpcError as err:
                if not retry or err.code() not in _core.RETRYABLE or attempt + 1 >= self._retry.max_attempts:
                    raise _core.status_error(err, what) from None
                await asyncio.sleep(self._retry.backoff(attempt))
                attempt += 1

    async def create_session(self, workspace: str = "", *, mode: Optional[str] = None, allow: Sequence[str] = (),
                             deny: Sequence[str] = (), ask: Sequence[str] = (),
                             additional_directories: Sequence[str] = (), env: Optional[Dict[str, str]] = None):
        req = _core.session_request(workspace, mode, allow, deny, ask, additional_directories, env)
        return (await self._unary("CreateSession", self._sessions.CreateSession, req, retry=False)).session

    async def get_session(self, session_id: str):
        return (await self._unary("GetSession", self._sessions.GetSession,
                                  session_pb2.GetSessionRequest(session_id=session_id))).session

    async def delete_session(self, session_id: str) -> None:
        await self._unary("DeleteSession", self._sessions.DeleteSession,
                          session_pb2.DeleteSessionRequest(session_id=session_id))

    async def tools(self, session_id: str = "", *, include_deferred: bool = False) -> List[Dict[str, Any]]:
        resp = await self._unary("ListTools", self._tools.ListTools, tool_pb2.ListToolsRequest(session_id=session_id))
        return _core.tools_list(resp, include_deferred)

    async def list_notifications(self, session_id: str, after_seq: int = 0, *, limit: int = 0,
                                 wait: float = 0.0) -> Notifications:
        """As Client.list_notifications."""
        resp = await self._unary("ListNotifications", self._tools.ListNotifications,
                                 _notifications.list_request(session_id, after_seq, limit, wait))
        return _notifications.page_of(resp)

    async def watch_notifications(self, session_id: str, after_seq: int = 0) -> AsyncIterator[Notifications]:
        """As Client.watch_notifications, an async iterator."""
        attempt = 0
        while True:
            call = self._tools.WatchNotifications(_notifications.watch_request(session_id, after_seq), metadata=self._md)
            try:
                async for m in call:
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
                await asyncio.sleep(self._retry.backoff(attempt))
                attempt += 1
            except grpc.RpcError as err:
                if err.code() not in _core.RETRYABLE or attempt + 1 >= self._retry.max_attempts:
                    raise _core.status_error(err, "WatchNotifications") from None
                await asyncio.sleep(self._retry.backoff(attempt))
                attempt += 1
            finally:
                call.cancel()

    async def run(self, session_id: str, tool_use_blocks: Sequence[Dict[str, Any]],
                  handlers: Optional[Handlers] = None) -> List[Dict[str, Any]]:
        """See Client.run. Cancelling the task cancels the unfinished calls
        in toold (their processes are killed) before CancelledError goes on;
        so does any other exception that ends the run early."""
        run = _core.Run(session_id, tool_use_blocks)
        try:
            return await self._run(run, handlers or Handlers())
        except BaseException as err:
            # toold's own refusal of the request is no reason: an id it
            # refused may be another call's.
            if not run.done() and not isinstance(err, TooldError):
                try:
                    # Shielded: a second cancellation must not cut it short.
                    await asyncio.shield(self.cancel(session_id, run.unfinished()))
                except (TooldError, asyncio.CancelledError):
                    pass
            raise

    async def cancel(self, session_id: str, tool_use_ids: Sequence[str]) -> Dict[str, str]:
        """See Client.cancel."""
        resp = await self._unary("Cancel", self._tools.Cancel, _core.cancel_request(session_id, tool_use_ids))
        return _core.cancel_states(resp)

    async def complete_call(self, session_id: str, tool_use_id: str, completion: Completion) -> None:
        """See Client.complete_call."""
        await self._unary("CompleteCall", self._tools.CompleteCall,
                          _delegation.complete_request(session_id, tool_use_id, completion))

    async def call(self, session_id: str, tool_use_blocks: Sequence[Dict[str, Any]],
                   handlers: Optional[Handlers] = None) -> List[Dict[str, Any]]:
        """See Client.call."""
        run = _core.Run(session_id, tool_use_blocks)
        h = handlers or Handlers()
        try:
            resp = await self._unary("Call", self._tools.Call, run.call_request())
        except TooldError as err:
            if err.code == grpc.StatusCode.FAILED_PRECONDITION:
                return await self.run(session_id, tool_use_blocks, handlers)
            raise
        for ev in resp.events:
            if run.accept(ev):
                await self._dispatch(run, ev, h)
        if not run.done():
            raise TooldError(f"Call: toold's response has no result for {', '.join(run.unfinished())}", None)
        return run.ordered_results()

    async def _run(self, run: _core.Run, handlers: Handlers) -> List[Dict[str, Any]]:
        attempt = 0
        while not run.done():
            events: asyncio.Queue = asyncio.Queue()
            calls, tasks = [], []
            for kind, tid, req in run.plan():
                fn = self._tools.Execute if kind == "execute" else self._tools.Attach
                call = fn(req, metadata=self._md)
                calls.append(call)
                tasks.append(asyncio.ensure_future(_pump(call, kind, tid, events)))
            progressed, failure, open_streams = False, None, len(tasks)
            try:
                while open_streams:
                    item = await events.get()
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
                    await self._dispatch(run, ev, handlers)
            finally:
                for c in calls:
                    c.cancel()
                for t in tasks:
                    t.cancel()
            if run.done():
                break
            attempt = 0 if progressed else attempt + 1
            if attempt >= self._retry.max_attempts:
                raise failure or UnavailableError("toold ended the streams before every call had its result")
            await asyncio.sleep(self._retry.backoff(attempt))
        return run.ordered_results()

    async def _dispatch(self, run: _core.Run, ev: Any, h: Handlers) -> None:
        if h.on_event:
            await _maybe_await(h.on_event(ev))
        p = _core.progress_of(ev)
        if p is not None and h.on_progress:
            await _maybe_await(h.on_progress(p))
        if ev.HasField("permission_request"):
            pr = ev.permission_request
            if pr.request_id in run.answered:
                return
            run.answered.add(pr.request_id)
            if h.on_permission:
                answer = await _maybe_await(h.on_permission(_core.ask_of(ev.tool_use_id, pr)))
            else:
                answer = _core.deny(NO_HANDLER_MESSAGE)
            try:
                await self._unary("ResolvePermission", self._sessions.ResolvePermission,
                                  _core.answer_request(run.session_id, pr.request_id, answer))
            except TooldError as err:
                if err.code != grpc.StatusCode.NOT_FOUND:
                    raise
        if ev.HasField("delegated_call"):
            d = _delegation.delegation_of(ev.tool_use_id, ev.delegated_call)
            if h.on_delegated:
                completion = await _maybe_await(h.on_delegated(d))
            else:
                completion = _delegation.Completion(text=_delegation.NO_DELEGATION_MESSAGE, is_error=True)
            if completion is None:
                return  # the handler completes it itself
            try:
                await self.complete_call(run.session_id, ev.tool_use_id, completion)
            except TooldError as err:
                if err.code not in (grpc.StatusCode.NOT_FOUND, grpc.StatusCode.FAILED_PRECONDITION):
                    raise


async def _pump(call, kind: str, tid: Optional[str], out: asyncio.Queue) -> None:
    try:
        async for ev in call:
            out.put_nowait((None, ev))
        out.put_nowait((_END, kind, tid, None))
    except asyncio.CancelledError:
        raise
    except grpc.RpcError as err:
        out.put_nowait((_END, kind, tid, err))


def connect_async(target: str, **kwargs) -> AsyncClient:
    """AsyncClient(target, **kwargs)."""
    return AsyncClient(target, **kwargs)
