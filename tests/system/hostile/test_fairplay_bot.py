"""Bots on the daily (issue 13, test 7c): a script posting actions 20 ms apart,
the solver's line played back, Easy Harp won without ever looking — each is
flagged by the fair-play review with its reasons (and a log whose standing line
is the day's proof, whatever was undone on the way, by ``proof_line``); a
person playing a line of their own at a person's pace, with an undo or two, is
not. Every game goes through the real API; the review runs as the job does, on
commit (Celery eager in the tests). Nothing is disqualified by a flag. Why the
clock: ``tests/support/fairplay.py``."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from django.contrib.auth.models import AnonymousUser

from games.dailies import utc_today
from games.engine import EASY_HARP, SPECS, NeverLooked, new_game, solve
from games.engine.solver import Outcome
from games.fairplay import log_signals
from games.models import Attempt, Review
from leaderboard.selectors import leaderboard_for_day
from tests.support.fairplay import (
    HUMAN_GAPS,
    joined_before_today,
    own_address,
    play,
    start_daily,
    today_daily,
    with_undos,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def regular(make_player):
    """A player with an older account and an address of their own: nothing about
    the account flags them, only how they play."""
    client = make_player()
    joined_before_today(client)
    own_address(client)
    return client


def review_of(attempt_id: int) -> Review:
    return Review.objects.get(attempt_id=attempt_id)


def codes(review: Review) -> set[str]:
    return {reason["code"] for reason in review.reasons}


def another_win(code: str, proof: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A winning line of ``code`` that is not ``proof``, as a person might find:
    another card moved first, then the solver's line from there; no shorter than
    the proof (a person seldom beats the solver's par)."""
    for move in new_game(code).legal_moves:
        if move.type != "move" or move.source == proof[0].get("from"):
            continue
        game = new_game(code)
        line = [game.apply(move).to_json()]
        result = solve(game, nodes=200_000)
        if result.outcome is Outcome.SOLVED:
            line += [game.apply(action).to_json() for action in result.line]
            if len(line) >= len(proof):
                return line
    raise AssertionError(f"no other winning line of {code} found")


def on_board(client: Any, variant: str) -> bool:
    board = leaderboard_for_day(date=utc_today(), variant=variant, viewer=AnonymousUser())
    return any(row["player"] == client.username for row in board["results"])


def test_a_bot_posting_20_ms_apart_is_flagged_but_stays_on_the_board(regular, clock):
    daily = today_daily("SH1-C4")
    game = start_daily(regular, "SH1-C4")
    # Not the solver's line exactly (two undos in it), but what stands is the proof.
    line = with_undos(daily.proof, at=(5, 30))
    body = play(regular, game["id"], line, clock, gaps=(0.02,), first=1.0)
    assert body["status"] == "won"

    review = review_of(game["id"])
    assert review.flagged is True
    assert codes(review) == {"fast_median", "fast_gap", "proof_line"}, review.reasons
    assert review.signals["solver_line"] is False and review.signals["proof_line"] == "exact"
    # 20 ms on the clock; whole milliseconds since the start, so 19 or 20 between two.
    assert 19 <= review.signals["min_gap_ms"] <= review.signals["median_gap_ms"] <= 20
    assert "median time between actions" in review.reasons[0]["text"]
    # A flag only asks staff to look: the result is still ranked.
    attempt = Attempt.objects.get(pk=game["id"])
    assert attempt.disqualified is False and review.decision == ""
    assert on_board(regular, "SH1-C4")


def test_the_solver_line_played_back_at_a_human_pace_is_flagged(regular, clock):
    daily = today_daily("SH1-C4")
    game = start_daily(regular, "SH1-C4")
    body = play(regular, game["id"], daily.proof, clock, gaps=HUMAN_GAPS)
    assert body["status"] == "won" and body["moves"] == daily.par

    review = review_of(game["id"])
    assert codes(review) == {"solver_line", "par_no_exploration"}, review.reasons
    assert review.signals["solver_line"] is True
    assert review.signals["median_gap_ms"] >= 1000
    assert all(reason["text"] for reason in review.reasons)


def test_a_person_with_an_undo_or_two_is_not_flagged(regular, clock):
    daily = today_daily("SH1-C4")
    line = another_win(daily.deal.code, daily.proof)  # a line of their own, not the proof
    game = start_daily(regular, "SH1-C4")
    body = play(regular, game["id"], with_undos(line, at=(8, 25)), clock, gaps=HUMAN_GAPS)
    assert body["status"] == "won"

    review = review_of(game["id"])
    assert review.flagged is False and review.reasons == []
    assert review.signals["undos"] == 2 and review.signals["solver_line"] is False
    assert review.signals["proof_line"] is None and review.signals["proof_share"] < 1
    assert review.signals["min_gap_ms"] >= 900 and review.signals["moves"] > daily.par


def test_easy_harp_won_without_ever_looking_is_flagged(regular, clock, monkeypatch):
    # The day's deal changes every day; the solver's own line needs a few passes of
    # the stock and has 76-90 % progress moves on the fixed deals where the defaults
    # are checked (tests/games/test_fairplay.py). Here the limits leave room for any
    # day's line: this test is about the detection, not the calibration.
    loose = replace(EASY_HARP, never_looked=NeverLooked(max_passes=30, min_progress=0.5))
    monkeypatch.setitem(SPECS, "EH1", loose)
    daily = today_daily("EH1-N")
    stock = len(new_game(daily.deal.code).piles["s"])
    # One look through the whole stock first (it comes back in the same order),
    # then the winning line: not the solver's line, not at par, and never an undo.
    line = [{"type": "stock"}] * (stock + 1) + list(daily.proof)
    game = start_daily(regular, "EH1-N")
    body = play(regular, game["id"], line, clock, gaps=HUMAN_GAPS)
    assert body["status"] == "won"

    review = review_of(game["id"])
    # Both are right: no look taken back, and what stands makes the proof's card
    # moves (only the look through the stock adds taps).
    assert codes(review) == {"never_looked", "proof_line"}, review.reasons
    assert review.signals["proof_line"] == "card_moves"
    proof_passes = log_signals(
        code=daily.deal.code, actions=daily.proof, ms=list(range(len(daily.proof)))
    )["passes"]
    assert review.signals["passes"] == proof_passes + 1
    assert review.signals["undos"] == 0 and review.signals["take_backs"] == 0
