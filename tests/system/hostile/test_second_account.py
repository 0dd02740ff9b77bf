"""The second-account cheat (issue 25, deliverable 6): a scout account learns
today's Easy Harp daily (the whole stock drawn, the columns uncovered with
undo) and resigns; a main account, made days earlier, from another address
and another browser, then wins with what the scout saw — fast, or at a
person's pace with a few looks taken back. Both replays reach the review queue
with a cross-account reason, whichever of the two games finishes first; an
honest player who explores with undo and wins slowly is not flagged by the
new signals, nor is a household of two honest players behind one address.
Every game goes through the real HTTP API; the review runs as the job does,
on commit. Why the clock: ``tests/support/fairplay.py``."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client as DjangoClient

from games.engine import new_game
from games.fairplay import WEIGHTS, replayed
from games.models import Attempt, Review
from tests.support import fairplay

pytestmark = pytest.mark.django_db(transaction=True)

CROSS = {"scout_pattern", "scout_line", "scout_then_win", "shared_device", "dormant_strong_win"}
"""The reasons across accounts (games/fairplay.py, ``cross_reasons``)."""


def codes(attempt_id: int) -> set[str]:
    return {reason["code"] for reason in Review.objects.get(attempt_id=attempt_id).reasons}


def review(attempt_id: int) -> Review:
    return Review.objects.get(attempt_id=attempt_id)


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
    # A look at another move before one in four, undone: exploring with undo.
    line = fairplay.with_detours(daily.deal.code, daily.proof, at=range(0, len(daily.proof), 4))
    body = fairplay.play(player, game["id"], line, clock, gaps=fairplay.HUMAN_GAPS)
    assert body["status"] == "won"
    assert not codes(game["id"]) & CROSS, review(game["id"]).reasons
    assert review(game["id"]).signals["dormant"] is True  # dormant, but not a strong win


def test_a_household_of_two_honest_players_is_no_cross_account_reason(make_player, clock):
    """Two accounts behind one address, each playing its own game: the address
    is a link staff see (``address_accounts``), never a reason on its own."""
    first, second = fairplay.older_account(make_player), fairplay.older_account(make_player)
    second.defaults["REMOTE_ADDR"] = first.defaults["REMOTE_ADDR"]
    daily = fairplay.today_daily("EH1-N")
    game = fairplay.start_daily(first, "EH1-N")
    fairplay.play(first, game["id"], daily.proof[:40], clock, gaps=fairplay.HUMAN_GAPS)
    fairplay.resign_game(first, game["id"], clock)
    other = fairplay.start_daily(second, "EH1-N")
    line = fairplay.with_detours(daily.deal.code, daily.proof, at=range(0, len(daily.proof), 4))
    fairplay.play(second, other["id"], line, clock, gaps=fairplay.HUMAN_GAPS)

    for attempt_id in (game["id"], other["id"]):
        assert not codes(attempt_id) & CROSS, review(attempt_id).reasons
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
