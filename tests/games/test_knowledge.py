"""What the player knew, in the review (games/knowledge.py, issue 36): the engine's
test of the win itself (games/engine/knew.py) run after a ranked Easy Harp finish,
through the public API on the fair-play clock, with no link between accounts to go
by — an old account, an address of its own, a browser of its own."""

from __future__ import annotations

import functools
import io
import random
from typing import Any

import pytest
from django.core.management import call_command

from bench.knew import honest
from games import fairplay as review_service
from games import knowledge
from games.dailies import utc_today
from games.engine import Move, new_game
from games.engine.knew import SETTINGS, SOLVER_LINE_NODES
from games.engine.solver import Budget
from games.engine.solver.easy_harp import probe_easy_harp
from games.fairplay import TIMING_ONLY, WEIGHTS
from games.models import DailyDeal, Review
from tests.support import fairplay

db = pytest.mark.django_db(transaction=True)

DEAL = "EH1-N-AAAAAAF"


@pytest.fixture
def judging(settings):
    """The test on, as with a broker (off where tasks run in-process), judging two
    decisions per win (CPU: see docs/fairplay.md)."""
    settings.FAIRPLAY_KNEW = True
    settings.FAIRPLAY_KNEW_DECISIONS = 2
    return settings


@functools.cache
def another_solver_line(code: str) -> tuple[dict[str, Any], ...]:
    """A winning line of the true deal from another setting of the project's solver
    than the day's proof: what an attacker holding the deal plays with our engine."""
    proof_moves = [a for a in fairplay.proof_of(code) if a["type"] == "move"]
    for params in SETTINGS[1:]:
        game = new_game(code)
        line = probe_easy_harp(game, Budget(nodes=SOLVER_LINE_NODES), (params,))
        if line:
            played = [game.apply(a).to_json() for a in line]
            if [a for a in played if a["type"] == "move"][:20] != proof_moves[:20]:
                return tuple(played)
    raise AssertionError("no setting finds another line")


def play_win(client: Any, clock: fairplay.Clock, line: list[dict[str, Any]]) -> int:
    game = fairplay.start_daily(client, "EH1-N")
    body = fairplay.play(client, game["id"], line, clock, gaps=fairplay.HUMAN_GAPS)
    assert body["status"] == "won"
    return game["id"]


@db
def test_a_win_on_a_solver_line_with_detours_is_judged_hidden_knowledge(
    make_player, clock, judging
):
    """An account made long ago, at an address and in a browser of its own, plays a
    line of the project's solver on the true deal (not the day's proof) with 40
    undone detours at a person's pace. No link, no scout, no proof: before, nothing
    flagged it. The test of the win itself does, in words, above every timing flag."""
    daily = fairplay.today_is(DEAL)
    line = list(another_solver_line(DEAL))
    assert [a for a in line if a["type"] == "move"] != [
        a for a in daily.proof if a["type"] == "move"
    ]
    step = len(line) // 41
    main = fairplay.older_account(make_player)
    attempt_id = play_win(
        main, clock, fairplay.with_detours(DEAL, line, at=range(step, len(line), step))
    )

    found = Review.objects.get(attempt_id=attempt_id)
    verdict = found.signals["knew"]
    assert verdict["flagged"] and verdict["line_share"] >= 0.9
    assert len(verdict["decisions"]) == 2
    codes = {reason["code"] for reason in found.reasons}
    assert "hidden_knowledge" in codes
    assert not codes & {"proof_line", "solver_line", "fast_median", "fast_gap"}
    [text] = [r["text"] for r in found.reasons if r["code"] == "hidden_knowledge"]
    assert text.startswith("what the player knew: the standing line")
    assert "solver's line of the true deal" in text
    assert found.score >= WEIGHTS["hidden_knowledge"] > sum(WEIGHTS[c] for c in TIMING_ONLY)

    # A review computed again (a scout found later does that) keeps the verdict.
    again = review_service.attempt_review(attempt_id=attempt_id)
    assert again is not None and "hidden_knowledge" in {r["code"] for r in again.reasons}
    assert again.signals["knew"] == verdict
    # The same log is not judged twice (a claim reviews it again): the same verdict.
    assert knowledge.attempt_knowledge(attempt_id=attempt_id).signals["knew"] == verdict


@db
def test_an_honest_players_win_is_not_judged_hidden_knowledge(make_player, clock, judging):
    """A player who plays from what it sees (bench/knew.py's planner: it assumes a
    deal consistent with the cards it saw, plays it, and plans again on each
    surprise) wins; the test finds no hidden knowledge in it."""
    fairplay.today_is(DEAL)
    table = honest(DEAL, random.Random(5), nodes=3000, noise=0.0, stock_first=True, explore=0.0)
    assert table.game.won
    player = fairplay.older_account(make_player)
    attempt_id = play_win(player, clock, table.log)
    found = Review.objects.get(attempt_id=attempt_id)
    assert found.signals["knew"]["flagged"] is False
    assert found.signals["knew"]["decisions"]  # it was judged, and cleared
    assert "hidden_knowledge" not in {r["code"] for r in found.reasons}


@db
def test_only_results_of_a_game_that_hides_cards_are_judged(make_player, clock, judging):
    fairplay.today_daily("SH1-C4")
    daily = DailyDeal.objects.get(date=utc_today(), variant="SH1-C4")
    player = fairplay.older_account(make_player)
    game = fairplay.start_daily(player, "SH1-C4")
    body = fairplay.play(player, game["id"], daily.proof, clock, gaps=fairplay.HUMAN_GAPS)
    assert body["status"] == "won"
    assert knowledge.attempt_knowledge(attempt_id=game["id"]) is None
    assert "knew" not in Review.objects.get(attempt_id=game["id"]).signals


@db
def test_the_command_judges_a_day_by_hand(make_player, clock, settings):
    """Where tasks run in-process the test is off (it would hold a win's answer for
    seconds); ``manage.py judge_knowledge`` runs it."""
    settings.FAIRPLAY_KNEW_DECISIONS = 1
    fairplay.today_is(DEAL)
    main = fairplay.older_account(make_player)
    attempt_id = play_win(main, clock, list(another_solver_line(DEAL)))
    assert "knew" not in Review.objects.get(attempt_id=attempt_id).signals
    out = io.StringIO()
    call_command("judge_knowledge", "--date", utc_today().isoformat(), stdout=out)
    assert f"#{attempt_id}: FLAGGED" in out.getvalue()
    assert "hidden_knowledge" in {
        r["code"] for r in Review.objects.get(attempt_id=attempt_id).reasons
    }
    with pytest.raises(Exception, match="not a date"):
        call_command("judge_knowledge", "--date", "yesterday")


def test_moves_are_what_the_solver_lines_are_made_of():
    """The attack's line is the solver's own (a sanity check of the helper above)."""
    line = another_solver_line(DEAL)
    game = new_game(DEAL)
    for action in line:
        game.apply(game.parse_action(action))
    assert game.won and any(isinstance(game.parse_action(a), Move) for a in line)
