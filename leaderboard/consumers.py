"""The day's leaderboard socket: ``/ws/leaderboard/{date}/{variant}/`` sends rows
as attempts on that deal finish (protocol: ``games/websocket.md``)."""

from __future__ import annotations

import datetime as dt

from games.engine import MalformedError, parse_variant
from games.realtime import leaderboard_group
from kit.api import parse_date
from kit.http import ApiError
from kit.sockets import CLOSE_BAD_REQUEST, JsonSocket


def _parse_board(date: str, variant: str) -> tuple[dt.date, str]:
    """The day and variant of a board, read by the validators the REST
    leaderboard uses (``leaderboard/api.py``): what it refuses, this refuses."""
    day = parse_date(date)
    try:
        variant = parse_variant(variant).id
    except MalformedError as exc:
        raise ApiError(400, exc.code, exc.message) from None
    return day, variant


class LeaderboardConsumer(JsonSocket):
    """``/ws/leaderboard/{date}/{variant}/``: rows as attempts on that deal finish."""

    group = ""

    async def connect(self) -> None:
        kwargs = self.scope["url_route"]["kwargs"]
        try:
            day, variant = _parse_board(kwargs["date"], kwargs["variant"])
        except ApiError as exc:
            await self.refuse(CLOSE_BAD_REQUEST, exc)
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
