"""Cheap strong signals of hidden knowledge (issue 36, deliverable 3): the
standing line (what stays after the undos) against the day's proof, exploration
counted as undos that take back a look, what the games of a daily saw pooled per
device and address group, and the queue's order. Pure functions on fixed Easy
Harp deals first (no database); then the attacks of issue 36 through the public
API on the fair-play clock (``tests/support/fairplay.py``): a scout and a main
that plays the day's proof with 40 undone detours at a person's pace, scouting
split over three guests, a practice copy of the running daily (the free channel
closed by issue 36) pooled, and an honest explorer who looks with undo and wins."""

from __future__ import annotations

import datetime as dt
import functools
import ipaddress
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client as DjangoClient
from django.utils import timezone

from accounts.models import User
from games.engine import EngineError, new_game, solve
from games.engine.solver import Outcome
from games.fairplay import (
    HIDDEN_KNOWLEDGE,
    TIMING_ONLY,
    WEIGHTS,
    CrossThresholds,
    address_group,
    explore,
    log_signals,
    replayed,
    standing_line,
)
from games.models import Review
from tests.support import fairplay
from tests.support.api import guest, legacy_daily_practice
from tests.support.fairplay import resign_game, scout

DEAL = "EH1-N-AAAAAAF"
"""A fixed deal whose proof and another winning line turn up its face-down cards
in orders far enough apart for split scouting (measured: see ``split_scouts``)."""

DEFAULTS = CrossThresholds()
NEW_REASONS = HIDDEN_KNOWLEDGE | {"never_looked", "par_no_exploration"}
"""What an honest explorer must never be flagged for: the reasons of hidden
knowledge and those of play that needed no looking."""


@functools.cache
def other_route(code: str, after: int = 40) -> tuple[dict[str, Any], ...]:
    """Another winning line: the proof's first ``after`` actions, then another card
    move than the proof's, then the solver's line from there."""
    proof = fairplay.proof_of(code)
    game = new_game(code)
    line = [game.apply(game.parse_action(action)).to_json() for action in proof[:after]]
    planned = game.resolve(game.parse_action(proof[after]))
    other = next(
        m for m in game.legal_moves if m.type == "move" and m != planned and m.source[0] != "f"
    )
    line.append(game.apply(other).to_json())
    result = solve(game, nodes=200_000)
    assert result.outcome is Outcome.SOLVED, (code, after)
    line += [game.apply(action).to_json() for action in result.line]
    assert game.won
    return tuple(line)


def first_looks(code: str, actions: Any) -> list[int]:
    """The indices of ``actions`` that showed a hidden card for the first time."""
    return [i for i, played in enumerate(replayed(new_game(code), actions)) if played.shown]


def until_seen(code: str, actions: Any, cards: int) -> list[dict[str, Any]]:
    """The longest start of ``actions`` that shows at most ``cards`` hidden cards."""
    looks = first_looks(code, actions)
    cut = looks[cards] if cards < len(looks) else len(actions)
    return list(actions[:cut])


def signals_of(code: str, actions: Any) -> dict[str, Any]:
    ms = [3000 * (i + 1) for i in range(len(actions))]
    return log_signals(code=code, actions=actions, ms=ms, proof=list(fairplay.proof_of(code)))


# --- the standing line, pure ------------------------------------------------------------------


def test_the_standing_line_is_what_stays_after_the_undos():
    proof = list(fairplay.proof_of(DEAL))
    assert standing_line(DEAL, proof) == proof
    # Detours tried and taken back, and moves taken back and played again.
    detoured = fairplay.with_detours(DEAL, proof, at=range(3, len(proof), 7))
    again = fairplay.with_undos(detoured, at=(0, 10, 11))
    assert len(again) > len(proof) + 40
    assert standing_line(DEAL, again) == proof
    # Undos in a row take back the last actions still standing, one each, stock
    # taps included; a tap stands as the move it made.
    game = new_game(DEAL)
    tap = next(
        {"type": "tap", "from": m.source}
        for m in game.legal_moves
        if m.type == "move" and m.target[0] == "f"
    )
    resolved = game.apply(game.parse_action(tap)).to_json()
    log = [tap, {"type": "stock"}, {"type": "stock"}, {"type": "undo"}, {"type": "undo"}]
    assert standing_line(DEAL, log) == [resolved]
    assert standing_line(DEAL, [*log, {"type": "stock"}]) == [resolved, {"type": "stock"}]
    assert standing_line(DEAL, [*log, {"type": "undo"}]) == []
    # A log the engine refuses raises its error.
    with pytest.raises(EngineError):
        standing_line(DEAL, [{"type": "undo"}])


def test_the_proof_standing_is_flagged_however_many_detours_hide_it():
    proof = list(fairplay.proof_of(DEAL))
    detoured = fairplay.with_detours(DEAL, proof, at=range(5, len(proof), 7))
    signals = signals_of(DEAL, detoured)
    assert signals["undos"] >= 40 and signals["solver_line"] is False
    assert (signals["proof_line"], signals["proof_share"]) == ("exact", 1.0)
    assert signals["standing_moves"] == len(proof)
    # A look through the stock first (passes are free): the same card moves.
    stock = len(new_game(DEAL).piles["s"])
    looked = [{"type": "stock"}] * (stock + 1) + detoured
    assert signals_of(DEAL, looked)["proof_line"] == "card_moves"
    # Another line parts from the proof: the share is its common start.
    route = list(other_route(DEAL))
    other = signals_of(DEAL, route)
    moves_before = sum(a["type"] == "move" for a in route[:40])
    assert other["proof_line"] is None
    assert other["proof_share"] == round(moves_before / other["card_moves"], 3) < 0.5


def test_only_undos_that_take_back_a_look_are_exploration():
    proof = list(fairplay.proof_of(DEAL))
    stock, undo = {"type": "stock"}, {"type": "undo"}
    looks = first_looks(DEAL, proof)
    turning = next(i for i in looks if proof[i]["type"] == "move")  # a card turned up
    blind = next(i for i, a in enumerate(proof) if a["type"] == "move" and i not in looks)
    last = max(blind, turning)
    # The first stock card drawn, taken back: a look. Drawn again and taken back:
    # that card was seen, so no look.
    log = [stock, undo, stock, undo]
    for index, action in enumerate(proof[: last + 1]):
        if index == blind:  # a move that uncovers nothing, taken back: a detour
            log += [action, undo]
        if index == turning:  # a card turned up, taken back: a look; again: none
            log += [action, undo, action, undo]
        log.append(action)
    signals = signals_of(DEAL, log)
    assert (signals["undos"], signals["look_undos"]) == (5, 2)
    found = explore(DEAL, log)
    assert found is not None and (found.undos, found.look_undos) == (5, 2)
    stock_top = 0 if any(a["type"] == "stock" for a in proof[: last + 1]) else 1
    assert found.seen == len(first_looks(DEAL, proof[: last + 1])) + stock_top
    assert standing_line(DEAL, log) == proof[: last + 1]


def test_address_groups():
    v4 = address_group("198.51.100.7", DEFAULTS)
    assert v4 == ipaddress.ip_network("198.51.100.0/24")
    assert ipaddress.ip_address("198.51.100.250") in v4
    assert ipaddress.ip_address("198.51.101.7") not in v4
    v6 = address_group("2001:db8:1:2:aa:bb:cc:dd", DEFAULTS)
    assert v6 == ipaddress.ip_network("2001:db8:1:2::/64")
    assert ipaddress.ip_address("2001:db8:1:2::9") in v6
    assert ipaddress.ip_address("2001:db8:1:3::9") not in v6
    assert address_group("not an address", DEFAULTS) is None
    narrow = CrossThresholds(group_v4=32)
    assert address_group("198.51.100.7", narrow) == ipaddress.ip_network("198.51.100.7/32")


def test_hidden_knowledge_weighs_more_than_every_timing_only_combination():
    timing = sum(WEIGHTS[code] for code in TIMING_ONLY)
    assert timing == 14
    assert all(WEIGHTS[code] > timing for code in HIDDEN_KNOWLEDGE)
    assert WEIGHTS["hidden_knowledge"] == 20
    # Every reason but hidden knowledge, as many as one review can carry (a won
    # game is no scout, a dormant account no new one): still under 20.
    won = TIMING_ONLY - {"scout_pattern", "new_account"} | {"par_no_exploration", "never_looked"}
    assert sum(WEIGHTS[code] for code in won) < WEIGHTS["hidden_knowledge"]


# --- through the API ----------------------------------------------------------------------------

db = pytest.mark.django_db(transaction=True)


def codes(attempt_id: int) -> set[str]:
    return {reason["code"] for reason in review(attempt_id).reasons}


def review(attempt_id: int) -> Review:
    return Review.objects.get(attempt_id=attempt_id)


def joined_days_ago(client: Any, days: int) -> None:
    User.objects.filter(username=client.username).update(
        date_joined=timezone.now() - dt.timedelta(days=days)
    )


def spread(count: int, length: int) -> list[int]:
    """``count`` indices spread over a line of ``length`` actions."""
    return [3 + index * (length - 6) // count for index in range(count)]


@db
def test_a_main_playing_the_proof_with_40_undone_detours_sorts_above_its_scout(make_player, clock):
    """Issue 36: a scout learns the Easy Harp daily with undo and resigns; a main
    made 9 days earlier, at another address and in another browser, plays the
    day's proof with 40 undone detours at a person's pace and wins. Before, it
    was not flagged at all (score 0, the best score of the day)."""
    scouting = fairplay.older_account(make_player)
    scout_id = scout(scouting, clock)
    main = make_player()
    joined_days_ago(main, 9)
    main.defaults["REMOTE_ADDR"] = "203.0.113.9"  # another network than the scout's
    daily = fairplay.today_daily("EH1-N")
    game = fairplay.start_daily(main, "EH1-N")
    line = fairplay.with_detours(daily.deal.code, daily.proof, at=spread(40, len(daily.proof)))
    body = fairplay.play(main, game["id"], line, clock, gaps=fairplay.HUMAN_GAPS)
    assert body["status"] == "won"

    found = review(game["id"])
    assert found.signals["undos"] == 40 and found.signals["median_gap_ms"] >= 1000
    assert found.signals["proof_line"] == "exact"
    assert not codes(game["id"]) & {"fast_median", "fast_gap", "solver_line"}
    [text] = [r["text"] for r in found.reasons if r["code"] == "proof_line"]
    assert "is exactly the daily's proof, every action" in text
    assert f"par {daily.par}" in text and "40 actions were tried and taken back" in text
    # Above its scout, and above every review flagged for timing, account or links only.
    assert found.score > review(scout_id).score > 0
    assert found.score > sum(WEIGHTS[code] for code in TIMING_ONLY)

    # The staff queue lists it first, the reason in words, marked.
    admin = DjangoClient()
    admin.force_login(fairplay.make_staff())
    page = admin.get(f"/{settings.ADMIN_PATH}games/review/").content.decode()
    rows = re.findall(r'href="[^"]*/games/attempt/(\d+)/change/"', page)
    assert rows[0] == str(game["id"]), rows
    assert "<strong>Hidden knowledge:</strong> what stayed after its 40 undos" in page


def split_scouts(code: str) -> list[list[dict[str, Any]]]:
    """Three explorations of ``code`` each under the scout share, together over
    it (issue 36 measured 90, 90 and 76 of 95, 93 together): the proof until 90
    hidden cards showed, another winning line until 90 showed, the proof until 76."""
    proof, route = list(fairplay.proof_of(code)), list(other_route(code))
    return [until_seen(code, proof, 90), until_seen(code, route, 90), until_seen(code, proof, 76)]


def scout_as_guest(address: str, actions: list[dict[str, Any]], clock: fairplay.Clock) -> Any:
    visitor = guest()
    visitor.defaults["REMOTE_ADDR"] = address
    game = fairplay.start_daily(visitor, "EH1-N")
    fairplay.play(visitor, game["id"], actions, clock, gaps=(0.8, 1.3))
    resign_game(visitor, game["id"], clock)
    visitor.attempt_id = game["id"]
    return visitor


@db
def test_scouting_split_over_three_guests_adds_up(make_player, clock):
    from games.device import DEVICE_COOKIE

    fairplay.today_is(DEAL)
    scouted = split_scouts(DEAL)
    seen = [explore(DEAL, actions) for actions in scouted]
    hidden = seen[0].hidden
    assert all(s.seen < DEFAULTS.scout_seen * hidden for s in seen), [s.seen for s in seen]
    together = len(frozenset().union(*(s.seen_cards for s in seen)))
    assert together >= DEFAULTS.scout_seen * hidden, together
    # Two guests from one address group (a /24), one in the main's browser elsewhere.
    guests = [
        scout_as_guest("198.51.100.11", scouted[0], clock),
        scout_as_guest("192.0.2.200", scouted[1], clock),
        scout_as_guest("198.51.100.12", scouted[2], clock),
    ]
    for visitor in guests:
        assert not codes(visitor.attempt_id) & HIDDEN_KNOWLEDGE  # none is a scout alone

    main = fairplay.older_account(make_player)
    main.defaults["REMOTE_ADDR"] = "198.51.100.77"
    main.cookies[DEVICE_COOKIE] = guests[1].cookies[DEVICE_COOKIE].value
    game = fairplay.start_daily(main, "EH1-N")
    route = list(other_route(DEAL, after=60))  # not the proof
    assert fairplay.play(main, game["id"], route, clock, gaps=fairplay.HUMAN_GAPS)["won"]

    found = review(game["id"])
    assert "pooled_scouts" in codes(game["id"]), found.reasons
    assert found.signals["pooled_seen"] == together
    assert [g["attempt"] for g in found.signals["pooled"]] == [v.attempt_id for v in guests]
    [text] = [r["text"] for r in found.reasons if r["code"] == "pooled_scouts"]
    assert f"saw {together} of the {hidden} hidden cards together" in text
    names = [User.objects.get(attempts__pk=v.attempt_id).username for v in guests]
    assert all(f"{name}'s ranked game" in text for name in names), text
    assert found.score > sum(WEIGHTS[code] for code in TIMING_ONLY)

    # A player elsewhere, in another browser, wins the same day: no pool.
    stranger = fairplay.older_account(make_player)
    stranger.defaults["REMOTE_ADDR"] = "203.0.113.50"
    other = fairplay.start_daily(stranger, "EH1-N")
    assert fairplay.play(stranger, other["id"], route, clock, gaps=fairplay.HUMAN_GAPS)["won"]
    assert review(other["id"]).signals["pooled"] == []
    assert "pooled_scouts" not in codes(other["id"])


@db
def test_a_practice_copy_dealt_before_practice_closed_is_pooled(make_player, clock):
    """Issue 36's free channel: the scout resigns its ranked attempt at once and
    learns the deal in a practice copy of the running daily, with undo (such
    copies exist from before running dailies were closed to practice). Practice
    games were never scout candidates; the pool counts them."""
    daily = fairplay.today_daily("EH1-N")
    scouting = fairplay.older_account(make_player)
    scouting.defaults["REMOTE_ADDR"] = "198.51.100.20"
    ranked = fairplay.start_daily(scouting, "EH1-N")
    resign_game(scouting, ranked["id"], clock)
    copy = legacy_daily_practice(scouting, "EH1-N")
    learnt = fairplay.scout_line(daily.deal.code, daily.proof)
    fairplay.play(scouting, copy["id"], learnt, clock, gaps=(0.5,))

    main = fairplay.older_account(make_player)
    main.defaults["REMOTE_ADDR"] = "198.51.100.21"  # the scout's address group
    game = fairplay.start_daily(main, "EH1-N")
    line = fairplay.with_detours(daily.deal.code, daily.proof, at=spread(20, len(daily.proof)))
    assert fairplay.play(main, game["id"], line, clock, gaps=fairplay.HUMAN_GAPS)["won"]

    found = review(game["id"])
    assert {"pooled_scouts", "proof_line"} <= codes(game["id"]), found.reasons
    hidden = found.signals["explored_hidden"]
    assert [g["attempt"] for g in found.signals["pooled"]] == [copy["id"]]
    [text] = [r["text"] for r in found.reasons if r["code"] == "pooled_scouts"]
    assert f"{scouting.username}'s practice game #{copy['id']} saw {hidden}" in text


@db
def test_an_honest_explorer_who_looks_with_undo_and_wins_is_not_flagged(make_player, clock):
    """Someone who turns cards up, takes the look back, thinks, plays on and wins
    on a line of their own: none of the reasons of hidden knowledge or of play
    that never needed a look."""
    fairplay.today_is(DEAL)
    player = fairplay.older_account(make_player)
    player.defaults["REMOTE_ADDR"] = "203.0.113.70"
    route = list(other_route(DEAL))
    stock = len(new_game(DEAL).piles["s"])
    turned = [i for i in first_looks(DEAL, route) if route[i]["type"] == "move"]
    explored = fairplay.with_undos(route, at=turned[::3])
    # ... and a few moves tried and taken back that uncovered nothing.
    explored = fairplay.with_detours(DEAL, explored, at=range(stock, len(explored), 50))
    game = fairplay.start_daily(player, "EH1-N")
    assert fairplay.play(player, game["id"], explored, clock, gaps=fairplay.HUMAN_GAPS)["won"]

    found = review(game["id"])
    assert found.signals["look_undos"] == len(turned[::3]) > 0
    assert found.signals["undos"] > found.signals["look_undos"]
    assert found.signals["proof_line"] is None and found.signals["proof_share"] < 0.5
    assert not codes(game["id"]) & NEW_REASONS, found.reasons
