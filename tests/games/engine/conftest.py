"""The engine suite runs with a third game registered: the toy Baker's Game
(``tests/support/toy_bakers.py``), for the whole package, unregistered after it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from games.engine import register, unregister
from tests.support.toy_bakers import BAKERS


@pytest.fixture(scope="package", autouse=True)
def bakers_game_registered() -> Iterator[None]:
    register(BAKERS)
    yield
    unregister(BAKERS.prefix)
