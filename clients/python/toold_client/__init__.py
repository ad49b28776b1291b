"""toold_client: run Messages API tool_use blocks through toold.

    from toold_client import connect, Handlers, allow
    c = connect("127.0.0.1:50051")
    s = c.create_session()
    results = c.run(s.id, tool_use_blocks, Handlers(on_permission=lambda ask: allow()))
"""

from toold_client._core import (
    CancelledError,
    Handlers,
    PermissionAnswer,
    PermissionAsk,
    Progress,
    RetryPolicy,
    TooldError,
    UnavailableError,
    allow,
    allow_for_session,
    deny,
)
from toold_client._delegation import Completion, Delegation
from toold_client._notifications import Notification, Notifications, idle_turn_text, notification_text
from toold_client.client import Client, connect

__all__ = [
    "AsyncClient",
    "CancelledError",
    "Client",
    "Completion",
    "Delegation",
    "Handlers",
    "Notification",
    "Notifications",
    "PermissionAnswer",
    "PermissionAsk",
    "Progress",
    "RetryPolicy",
    "TooldError",
    "UnavailableError",
    "allow",
    "allow_for_session",
    "connect",
    "connect_async",
    "deny",
    "idle_turn_text",
    "notification_text",
]


def __getattr__(name):
    # grpc.aio is imported only by users of the asyncio client.
    if name in ("AsyncClient", "connect_async"):
        from toold_client import aio

        return getattr(aio, name)
    raise AttributeError(name)
