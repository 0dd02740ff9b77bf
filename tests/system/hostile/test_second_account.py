"""The second-account cheat (issue 25, deliverable 6): a scout account learns
today's Easy Harp daily (the whole stock drawn, the columns uncovered with
undo) and resigns; a main account, made days earlier, from another address
and another browser, then wins with what the scout saw — fast, or at a
person's pace with a few looks taken back. Both replays reach the review queue
with a cross-account reason, whichever of the two games finishes first; an
honest player who explores with undo and wins slowly with a line of their own
is not flagged at all, nor is a household of two honest players behind one
address.
Every game goes through the real HTTP API; the review runs as the job does,
on commit. Why the clock: ``tests/support/fairplay.py``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client as DjangoClient

from games.engine import new_game, solve
from games.engine.solver import Outcome
from games.fairplay import WEIGHTS, log_signals, replayed
from games.models import Attempt, Review
from tests.support import fairplay

pytestmark = pytest.mark.django_db(transaction=True)


def codes(attempt_id: int) -> set[str]:
    return {reason["code"] for reason in Review.objects.get(attempt_id=attempt_id).reasons}


def review(attempt_id: int) -> Review:
    return Review.objects.get(attempt_id=attempt_id)


def own_line(code: str, proof: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A winning line of ``code`` that is not ``proof``, as a person might find:
    the proof's moves up to the first position where another card move still
    wins, that move, then the solver's line from there. (``another_win`` in
    ``tests/system/hostile/test_fairplay_bot.py`` changes the first move only,
    where an Easy Harp deal may have a single card move.) A person seldom beats
    the solver's par, and a month-old account's first win that does is rightly
    flagged (``dormant_strong_win``): where the line is shorter than the proof,
    the player first looks through the whole stock as many times as it takes
    to make it up (the stock comes back in the same order). A position the
    solver does not settle in 5,000 nodes is passed over: that keeps the search
    to seconds on every day's deal."""
    game = new_game(code)
    for index, action in enumerate(proof):
        planned = game.resolve(game.parse_action(action))
        for move in game.legal_moves:
            if move.type != "move" or move == planned:
                continue
            trial = game.copy()
            trial.apply(move)
            result = solve(trial, nodes=5_000)
            if result.outcome is not Outcome.SOLVED:
                continue
            line = [*proof[:index], move.to_json()]
            line += [trial.apply(step).to_json() for step in result.line]
            ms = list(range(len(line)))
            if log_signals(code=code, actions=line, ms=ms, proof=proof)["proof_line"] is None:
                look = [{"type": "stock"}] * (len(new_game(code).piles["s"]) + 1)
                return look * -(-max(0, len(proof) - len(line)) // len(look)) + line
        game.play(planned)
    raise AssertionError(f"no other winning line of {code} found")


def honest_win(code: str, proof: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """How an honest explorer wins: a line of their own (``own_line``), three
    looks taken back on the way (an action that showed a hidden card, undone and
    played again) and, before one action in four, another move tried and undone
    (a detour that turns a card up is a look taken back too)."""
    line = own_line(code, proof)
    played = replayed(new_game(code), line)
    looks = [index for index, step in enumerate(played) if step.shown]
    line = fairplay.with_undos(line, at=[looks[len(looks) * k // 4] for k in (1, 2, 3)])
    return fairplay.with_detours(code, line, at=range(0, len(line), 4))


def win_with_knowledge(client: Any, clock: fairplay.Clock, gaps: tuple[float, ...]) -> int:
    """The day's proof with three looks taken back (an action that showed a hidden
    card for the first time, undone and played again): exploration, so no
    per-game signal of play that never looked fires. Undone detours would not do
    (issue 36: they show nothing and cost nothing). What stands is still the
    proof (``proof_line``): the cross-account reasons are what this file tests."""
    daily = fairplay.today_daily("EH1-N")
    game = fairplay.start_daily(client, "EH1-N")
    played = replayed(new_game(daily.deal.code), daily.proof)
    looks = [index for index, step in enumerate(played) if step.shown]
    line = fairplay.with_undos(daily.proof, at=[looks[len(looks) * k // 4] for k in (1, 2, 3)])
    body = fairplay.play(client, game["id"], line, clock, gaps=gaps)
    assert body["status"] == "won"
    return game["id"]


def test_the_scout_and_a_fast_replay_are_both_flagged(make_player, clock):
    scouting, main = fairplay.older_account(make_player), fairplay.older_account(make_player)
    scout_id = fairplay.scout(scouting, clock)
    assert codes(scout_id) == {"scout_pattern", "fast_median"}, review(scout_id).reasons
    won = win_with_knowledge(main, clock, gaps=(0.05,))

    found = review(won)
    assert {"scout_line", "fast_median"} <= codes(won), found.reasons
    text = next(r["text"] for r in found.reasons if r["code"] == "scout_line")
    assert scouting.username in text and f"#{scout_id}" in text
    assert found.signals["scouts"][0]["attempt"] == scout_id
    assert found.signals["scouts"][0]["shared"] >= 0.5
    # A flag only asks staff to look: the result is still ranked.
    assert Attempt.objects.get(pk=won).disqualified is False and found.decision == ""


def test_a_human_paced_replay_is_flagged_even_when_the_scout_resigns_after_the_win(
    make_player, clock
):
    scouting, main = fairplay.older_account(make_player), fairplay.older_account(make_player)
    scout_id = fairplay.scout(scouting, clock, resign=False)  # explored, still open
    won = win_with_knowledge(main, clock, gaps=fairplay.HUMAN_GAPS)
    # Played at a person's pace, taking looks back: no signal of timing or of play
    # that never looked fires (its standing line is the proof: ``proof_line``).
    assert not codes(won) & {"fast_median", "fast_gap", "solver_line", "never_looked"}
    assert "scout_line" not in codes(won)  # the scout has not given up yet
    before = review(won).score

    fairplay.resign_game(scouting, scout_id, clock)  # ... and the win is reviewed again
    found = review(won)
    assert "scout_line" in codes(won), found.reasons
    assert found.score >= before + WEIGHTS["scout_line"]
    assert found.signals["median_gap_ms"] >= 1000
    assert (found.signals["undos"], found.signals["look_undos"]) == (3, 3)
    assert "dormant_strong_win" in codes(won)  # a month-old account, first game, near par
    # The staff queue lists it first, with the reason and its weight.
    staff = fairplay.make_staff()
    admin = DjangoClient()
    admin.force_login(staff)
    page = admin.get(f"/{settings.ADMIN_PATH}games/review/")
    assert page.status_code == 200
    rows = re.findall(r'href="[^"]*/games/attempt/(\d+)/change/"', page.content.decode())
    assert rows[0] == str(won), rows
    assert "explored before giving up" in page.content.decode()
    assert found.score > review(scout_id).score > 0


def test_an_honest_explorer_who_wins_slowly_is_not_flagged(make_player, clock):
    player = fairplay.older_account(make_player)
    daily = fairplay.today_daily("EH1-N")
    game = fairplay.start_daily(player, "EH1-N")
    line = honest_win(daily.deal.code, daily.proof)
    body = fairplay.play(player, game["id"], line, clock, gaps=fairplay.HUMAN_GAPS)
    assert body["status"] == "won"

    found = review(game["id"])
    assert found.flagged is False and found.reasons == [] and found.score == 0, found.reasons
    # Its own line, not the day's proof, with looks taken back: exploration (the
    # three on purpose, and the detours that happened to turn a card up).
    assert found.signals["proof_line"] is None and found.signals["proof_share"] < 1
    assert found.signals["solver_line"] is False and found.signals["look_undos"] >= 3
    # Dormant (a month old, no earlier game), but not a strong win: exploring costs moves.
    assert found.signals["dormant"] is True
    assert found.signals["moves"] > 1.1 * found.signals["par"]


def test_a_household_of_two_honest_players_is_not_flagged(make_player, clock):
    """Two accounts behind one address, each playing its own game: the address
    is a link staff see (``address_accounts``), never a reason on its own, and
    neither game is flagged for anything else."""
    first, second = fairplay.older_account(make_player), fairplay.older_account(make_player)
    second.defaults["REMOTE_ADDR"] = first.defaults["REMOTE_ADDR"]
    daily = fairplay.today_daily("EH1-N")
    game = fairplay.start_daily(first, "EH1-N")
    fairplay.play(first, game["id"], daily.proof[:40], clock, gaps=fairplay.HUMAN_GAPS)
    fairplay.resign_game(first, game["id"], clock)
    other = fairplay.start_daily(second, "EH1-N")
    line = honest_win(daily.deal.code, daily.proof)
    body = fairplay.play(second, other["id"], line, clock, gaps=fairplay.HUMAN_GAPS)
    assert body["status"] == "won"

    for attempt_id in (game["id"], other["id"]):
        found = review(attempt_id)
        assert found.flagged is False and found.reasons == [], found.reasons
    assert review(other["id"]).signals["proof_line"] is None
    # The later game's review names the earlier account behind the address.
    assert review(other["id"]).signals["address_accounts"] == [first.username]


def test_two_accounts_in_one_browser_share_a_device(make_player, clock):
    from games.device import DEVICE_COOKIE  # here: the other tests run without it

    first, second = fairplay.older_account(make_player), fairplay.older_account(make_player)
    a = fairplay.start_daily(first, "SH1-C4")
    cookie = first.cookies[DEVICE_COOKIE]
    second.cookies[DEVICE_COOKIE] = cookie.value  # the same browser, another account
    b = fairplay.start_daily(second, "SH1-C4")
    devices = Attempt.objects.filter(pk__in=(a["id"], b["id"])).values_list("device", flat=True)
    assert len(set(devices)) == 1 and next(iter(devices))
    fairplay.resign_game(second, b["id"], clock)

    found = review(b["id"])
    assert "shared_device" in codes(b["id"]), found.reasons
    assert first.username in found.reasons[-1]["text"]
    assert found.score >= 2
