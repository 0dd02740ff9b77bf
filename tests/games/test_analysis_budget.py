"""A player's budget of post-mortems queued on demand (issue 38, ``ANALYSIS_RATE``):
each ``GET /api/games/{id}/analysis/`` that queues one spends it; over it the
answer is 429 in the error shape with ``Retry-After``, and nothing is queued.
Before, one guest's 20 resigned practice games and a GET on each queued 182 s
of solver work in 14 s, ahead of everyone's replay checks."""

from __future__ import annotations

import pytest

from games import tasks
from games.models import Analysis
from tests.support.api import assert_error, start, throttle_rates

pytestmark = pytest.mark.django_db


def resigned(player, code: str) -> int:
    game = start(player, code=code)
    player.send(f"/api/games/{game['id']}/resign/")
    return game["id"]


def test_analyses_past_a_players_budget_are_refused_429_and_not_queued(
    settings, make_player, monkeypatch
):
    throttle_rates(settings, analyses="2/hour")
    queued: list[int] = []
    analyse = tasks.analyse_attempt.delay
    monkeypatch.setattr(
        tasks.analyse_attempt, "delay", lambda pk: (queued.append(pk), analyse(pk))[1]
    )
    player, other = make_player(), make_player()
    games = [resigned(player, f"SH1-C4-AAAAAA{c}") for c in "BCD"]

    for game in games[:2]:  # in process here: analysed in the answer
        assert player.get(f"/api/games/{game}/analysis/").status_code == 200
    over = player.get(f"/api/games/{games[2]}/analysis/")
    error = assert_error(over, 429, "throttled")
    assert error["params"]["scope"] == "analyses"
    assert int(over["Retry-After"]) > 0
    assert queued == games[:2]
    assert not Analysis.objects.filter(attempt_id=games[2]).exists()

    # One analysed already costs nothing to read again; another player has a budget
    # of their own (the game's replay is public once it is over).
    assert player.get(f"/api/games/{games[0]}/analysis/").status_code == 200
    assert other.get(f"/api/games/{games[2]}/analysis/").status_code == 200
    assert queued == [*games[:2], games[2]]


def test_asking_again_for_a_pending_analysis_spends_nothing(settings, make_player, monkeypatch):
    """A page polls while its analysis waits in the queue: one queued, one spent —
    and the next game's is over the budget."""
    throttle_rates(settings, analyses="1/hour")
    queued: list[int] = []
    monkeypatch.setattr(tasks.analyse_attempt, "delay", queued.append)  # a worker, busy
    player = make_player()
    game, second = resigned(player, "SH1-C4-AAAAAAB"), resigned(player, "SH1-C4-AAAAAAC")
    for _ in range(3):
        assert_error(player.get(f"/api/games/{game}/analysis/"), 409, "analysis_pending")
    assert_error(player.get(f"/api/games/{second}/analysis/"), 429, "throttled")
    assert queued == [game]
