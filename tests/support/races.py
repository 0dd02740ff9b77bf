"""Race rooms over the API, in process (``/api/races/…``, docs/api.md, "Race
rooms"): open one, read one, act on one through its doors, each call's status
asserted; and a deal the solver wins at once, with its winning line."""

from __future__ import annotations

import functools
from typing import Any

from games.engine import Move, Stock
from tests.support.search import find_win

WIN_CODE = "SH1-C4-AAAAAAE"  # tests/support/search.py wins it at once


@functools.cache
def win_line() -> tuple[Move | Stock, ...]:
    """``WIN_CODE``'s winning line, searched once."""
    line = find_win(WIN_CODE)
    assert line is not None
    return tuple(line)


def create(client: Any, body: dict[str, Any], status: int = 201) -> dict[str, Any]:
    response = client.send("/api/races/", body)
    assert response.status_code == status, response.content
    return response.json()


def post(client: Any, race: str, door: str, body: Any = None, status: int = 200) -> Any:
    response = client.send(f"/api/races/{race}/{door}/", body)
    assert response.status_code == status, (door, response.content)
    return response.json()


def get(client: Any, race: str) -> dict[str, Any]:
    response = client.get(f"/api/races/{race}/")
    assert response.status_code == 200, response.content
    return response.json()
