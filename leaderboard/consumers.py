"""The day's leaderboard socket: ``/ws/leaderboard/{date}/{variant}/`` sends rows
as attempts on that deal finish (protocol: ``games/websocket.md``)."""

from __future__ import annotations

from games.realtime import leaderboard_group
from kit.api import parse_date
from kit.http import ApiError, describe_error
from kit.sockets import JsonSocket

from .selectors import leaderboard_variant


class LeaderboardConsumer(JsonSocket):
    """``/ws/leaderboard/{date}/{variant}/``: rows as attempts on that deal finish."""

    group = ""

    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        try:
            # The REST leaderboard's own readers (leaderboard/api.py): what it
            # refuses, this refuses, in its words and with its status as the close
            # code (4000 + the status: 4400 a bad date or variant, 4404 a day not begun).
            day = parse_date(kwargs["date"])
            variant = leaderboard_variant(date=day, variant=kwargs["variant"])
        except Exception as exc:
            described = describe_error(exc)
            if described is None:
                raise
            status, body, _ = described
            await self.refuse(4000 + status, ApiError(status, **body["error"]))
            return
        if not await self.take_slots():
            return
        self.group = leaderboard_group(day, variant)
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept_counted("leaderboard")
        await self.send_json({"type": "subscribed", "date": day.isoformat(), "variant": variant})

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)
