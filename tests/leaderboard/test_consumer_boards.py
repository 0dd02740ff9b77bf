"""``/ws/leaderboard/{date}/{variant}/`` opens exactly the boards
``GET /api/leaderboard/{date}/{variant}/`` answers (issue 37: the socket subscribed
to 9999-12-31, which REST answers 404). A board REST refuses is refused on the
socket in the same words — the REST answer's error, in an ``error`` frame — and
closed with 4000 + its status."""

from __future__ import annotations

import datetime as dt

import pytest
from asgiref.sync import sync_to_async

from games.dailies import utc_today
from tests.support.sockets import socket_for

pytestmark = [pytest.mark.asyncio, pytest.mark.django_db(transaction=True)]


def _day(days: int) -> str:
    return (utc_today() + dt.timedelta(days=days)).isoformat()


REFUSED = {
    "the-last-day": ("9999-12-31", "SH1-C4", 404, "no_daily"),
    "tomorrow": (_day(1), "EH1-N", 404, "no_daily"),
    # REST reads the variant first: a bad one is that, whatever the day.
    "a-bad-variant-tomorrow": (_day(1), "XX", 400, "bad_variant"),
    "not-a-date": ("2026-13-01", "SH1-C4", 400, "bad_date"),
    "a-word": ("yesterday", "SH1-C4", 400, "bad_date"),
    "an-unknown-variant": (_day(0), "SH1-C9", 400, "bad_code"),
    "an-unknown-game": (_day(-1), "XX-C4", 400, "bad_code"),
}


@pytest.mark.parametrize(("date", "variant", "status", "code"), REFUSED.values(), ids=REFUSED)
async def test_a_board_rest_refuses_is_refused_in_its_words(anon, date, variant, status, code):
    rest = await sync_to_async(anon.get)(f"/api/leaderboard/{date}/{variant}/")
    assert rest.status_code == status, rest.content
    assert rest.json()["error"]["code"] == code, rest.content

    sock = socket_for(f"/ws/leaderboard/{date}/{variant}/")
    connected, _ = await sock.connect()
    assert connected  # accepted only to say why: a close before the handshake loses the code
    assert await sock.recv() == {"type": "error", **rest.json()}
    closed = await sock.receive_output(timeout=3)
    assert closed == {"type": "websocket.close", "code": 4000 + status}
    await sock.wait()


ACCEPTED = {
    "today": (_day(0), "SH1-C4"),
    "yesterday": (_day(-1), "sh1-c2"),  # read as REST reads it: SH1-C2
    "a-day-long-before-any-daily": ("2001-01-01", "EH1-N"),  # an empty board, not a 404
}


@pytest.mark.parametrize(("date", "variant"), ACCEPTED.values(), ids=ACCEPTED)
async def test_a_board_rest_answers_is_subscribed(anon, date, variant):
    rest = await sync_to_async(anon.get)(f"/api/leaderboard/{date}/{variant}/")
    assert rest.status_code == 200, rest.content

    sock = socket_for(f"/ws/leaderboard/{date}/{variant}/")
    connected, _ = await sock.connect()
    assert connected
    assert await sock.recv() == {
        "type": "subscribed",
        "date": rest.json()["date"],
        "variant": rest.json()["variant"],
    }
    await sock.send({"type": "ping"})
    assert await sock.recv() == {"type": "pong"}
    await sock.disconnect()
