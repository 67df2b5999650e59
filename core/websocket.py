"""Websockets on a path that has no route (``/ws/nope/``, a date path over 40 characters, an
encoded ``..``): the socket is accepted, told ``not_found`` in an error frame like the board's,
and closed with code 4404 — where Channels' router would raise, and Daphne close with 1011.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

#: The close code of a socket on a path with no route (as a day that has not begun: 4404).
CLOSE_NOT_FOUND = 4404

Message = dict[str, Any]


async def no_route(
    scope: Message,
    receive: Callable[[], Awaitable[Message]],
    send: Callable[[Message], Awaitable[None]],
) -> None:
    """The ASGI application of every websocket path no other route takes."""
    if (await receive())["type"] != "websocket.connect":
        return
    frame = {"type": "error", "code": "not_found", "message": "No websocket at this path."}
    await send({"type": "websocket.accept"})
    await send({"type": "websocket.send", "text": json.dumps(frame)})
    await send({"type": "websocket.close", "code": CLOSE_NOT_FOUND})
