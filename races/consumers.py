"""``/ws/races/{race}/``: a room's racers and spectators follow it (protocol:
``games/websocket.md``). Thin: the race read through its selector, the group
joined; everything a client does goes over HTTP (only ``ping`` here)."""

from __future__ import annotations

import contextlib
from typing import Any

from autobahn.exception import Disconnected

from kit.errors import Refusal
from kit.sockets import CLOSE_NOT_FOUND, JsonSocket, connect_sync_to_async

from .events import race_frame, start_frame
from .realtime import race_event_kept, race_group


class RaceConsumer(JsonSocket):
    """Racers and spectators (signed in or not): the race on connect and on
    every change, progress as it comes, the start."""

    group = ""
    viewer_id: int | None = None

    async def connect(self) -> None:
        slug = self.scope["url_route"]["kwargs"]["race"]
        user = self.scope.get("user")
        self.viewer_id = user.pk if user is not None and user.is_authenticated else None
        if not await self.take_slots():
            return
        # In the group first: a frame sent after the race is read reaches this socket.
        self.group = race_group(slug)
        await self.channel_layer.group_add(self.group, self.channel_name)
        try:  # the race kept for its version, on the connects' own threads
            event = await connect_sync_to_async(race_event_kept)(slug)
        except Refusal as exc:
            await self.channel_layer.group_discard(self.group, self.channel_name)
            self.group = ""
            await self.refuse(CLOSE_NOT_FOUND, exc)
            return
        await self.accept_counted("race")
        await self.send(text_data=race_frame(event, self.viewer_id))

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def race_changed(self, event: dict[str, Any]) -> None:
        with contextlib.suppress(Disconnected):  # best effort, as every relayed event
            await self.send(text_data=race_frame(event, self.viewer_id))

    async def race_start(self, event: dict[str, Any]) -> None:
        with contextlib.suppress(Disconnected):
            await self.send(text_data=start_frame(event, self.viewer_id))
