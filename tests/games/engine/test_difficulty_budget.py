"""The predicted difficulty is counted in positions, not seconds (issue 38): a
deal gets the same prediction — the same level — on a machine however slow.
Before, a prediction stopped its searches and playouts at a wall-clock budget,
and a busy machine published an Easy Harp day as level 2 from 1 of its 16
playouts (level 1 with all 16)."""

from __future__ import annotations

import itertools
import time

import pytest

from games.engine import VARIANTS
from games.engine.difficulty import PLAYOUTS, predict


@pytest.fixture
def slow_machine(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every look at the clock finds a minute more gone: a machine thousands of
    times slower than this one, as far as any time budget can tell."""
    ticks = itertools.count(time.perf_counter(), 60.0)
    monkeypatch.setattr(time, "perf_counter", lambda: next(ticks))


@pytest.fixture
def on_this_machine() -> dict[str, object]:
    # Seahaven's daily budget: a real prediction, a second or so.
    return predict("SH1-C4-AAAAAAF", nodes=VARIANTS["SH1-C4"][1].effort.nodes).to_json()


def test_a_slow_machine_predicts_the_same_level_from_every_playout(on_this_machine, slow_machine):
    slow = predict("SH1-C4-AAAAAAF", nodes=VARIANTS["SH1-C4"][1].effort.nodes).to_json()
    assert slow == on_this_machine
    assert slow["level"] is not None
    assert slow["playouts"] == PLAYOUTS
    assert slow["probed_first"] == slow["first_moves"]
