"""Winnable practice by default (issue 24, deliverable 5): "New deal" deals a
numbered deal the solver proved winnable, from a pool a beat job fills
(``games/practice.py``), unless the player asks for any deal; and a lost
Seahaven game learns how many undos take it back to the last position that
could still be won (``GET /api/games/{id}/last-winnable/``) — never anything of
an Easy Harp game's hidden cards."""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

from games import practice, tasks
from games.dailies import deal_get, utc_today
from games.engine import GameCode, Undo, load_game, new_game, replay, solve
from games.engine.solver import Outcome
from games.models import Attempt, DailyDeal, ProvenDeal
from tests.support.api import Client, assert_error
from tests.support.api import start as start_game
from tests.support.hidden import check_hidden, engine_state
from tests.support.search import LOSE_CODE, losing_line

start = functools.partial(start_game, status=201)  # a new game, unless told


def winnable(code: str) -> bool:
    """The solver's own verdict, again, with the engine as the judge of its line."""
    game = new_game(code)
    result = solve(game, nodes=200_000)
    if result.outcome is not Outcome.SOLVED:
        return False
    for action in result.line:
        game.apply(action)
    return game.won


def last_winnable(client: Client, attempt_id: int) -> Any:
    return client.get(f"/api/games/{attempt_id}/last-winnable/")


# --- New deal: proven by default ------------------------------------------------------------


@pytest.mark.parametrize("variant", ["SH1-C1", "SH1-C2", "EH1-N"])
def test_a_new_deal_is_one_the_solver_proves_winnable(make_player, variant):
    """On an empty pool (a fresh machine) the request proves a deal itself and
    keeps it in the pool; the game says ``proven: true``. (Easy Harp: a proof
    takes about a second, which a busy machine may not give the request, so the
    job puts one deal in its pool first: the request's own search, or the
    pool, deals a proven one.)"""
    if variant == "EH1-N":
        assert tasks.fill_practice_pool.delay(variant, 1).get() == 1
    player = make_player()
    game = start(player, {"random": variant})
    assert game["proven"] is True and game["ranked"] is False and game["daily"] is None
    assert game["variant"] == variant
    assert winnable(game["code"]), game["code"]
    assert ProvenDeal.objects.filter(deal__code=game["code"], variant=variant).exists()
    # The attempt object says it everywhere, the action's answer included.
    assert player.get(f"/api/games/{game['id']}/").json()["proven"] is True


def test_any_deal_may_be_one_that_cannot_be_won(make_player):
    """``any: true``: a random numbered deal, said as not proven — on 1-cell
    Seahaven nearly always one the solver proves lost."""
    player = make_player()
    lost = None
    for _ in range(10):
        game = start(player, {"random": "SH1-C1", "any": True})
        assert game["proven"] is False
        if solve(new_game(game["code"]), nodes=200_000).outcome is Outcome.UNWINNABLE:
            lost = game["code"]
            break
    assert lost is not None, "ten 1-cell deals and none lost: any deal is not any deal"
    assert not ProvenDeal.objects.filter(deal__code=lost).exists()
    # The other ways of starting say nothing of it.
    assert start(player, {"code": "SH1-C4-AAAAAJ2"})["proven"] is None
    assert start(player, {"daily": "SH1-C4"})["proven"] is None
    explicit = start(player, {"random": "SH1-C4", "any": False})
    assert explicit["proven"] is True


@pytest.mark.parametrize(
    ("body", "says"),
    [
        pytest.param({"random": "SH1-C2", "any": "yes"}, "any", id="any-string"),
        pytest.param({"random": "SH1-C2", "any": 1}, "any", id="any-int"),
        pytest.param({"random": "SH1-C2", "any": None}, "any", id="any-null"),
        pytest.param({"daily": "SH1-C2", "any": True}, "any", id="any-daily"),
        pytest.param({"code": "SH1-C4-AAAAAJ2", "any": False}, "any", id="any-code"),
        pytest.param({"any": True}, "exactly one", id="any-alone"),
    ],
)
def test_any_is_checked_and_a_bad_one_named(make_player, body, says):
    player = make_player()
    error = assert_error(player.send("/api/games/", body), 400)
    assert says in error["message"].lower(), error
    assert not Attempt.objects.exists()


# --- the pool and its job ------------------------------------------------------------------


def test_the_pool_job_fills_each_variant_with_proven_deals_and_a_second_run_adds_none(db):
    added = tasks.fill_practice_pool.delay("SH1-C2", 4).get()
    assert added == 4
    pool = list(ProvenDeal.objects.filter(variant="SH1-C2").select_related("deal"))
    assert len(pool) == 4
    for entry in pool:
        assert entry.deal.variant == "SH1-C2" and entry.deal.number is not None
        game = replay(entry.deal.code, solve(new_game(entry.deal.code)).line)
        assert game.won and entry.par > 0
    # Safe to run twice: the pool is full, nothing changes.
    assert tasks.fill_practice_pool.delay("SH1-C2", 4).get() == 0
    assert sorted(ProvenDeal.objects.values_list("pk", flat=True)) == sorted(e.pk for e in pool)
    # The beat entry queues one task a variant (eagerly here: each fills to the
    # default size within its time budget; Seahaven 4-cell only, to stay short).
    assert practice.pool_fill(variant="SH1-C4", size=2, seconds=30) == 2
    assert practice.pool_fill(variant="SH1-C4", size=2, seconds=30) == 0


def test_the_pool_never_hands_out_the_cards_of_a_running_daily(make_player):
    """A pool deal whose cards some daily not yet over deals (another cell count
    here: the same shuffle) is never drawn, however often; a past daily's is."""
    practice.pool_fill(variant="SH1-C4", size=practice.INLINE_BELOW, seconds=60)
    pool = list(ProvenDeal.objects.filter(variant="SH1-C4").select_related("deal"))
    assert len(pool) == practice.INLINE_BELOW
    taken = GameCode.parse(pool[0].deal.code)
    same_cards = {str(c) for c in taken.same_cards()}
    DailyDeal.objects.create(
        date=utc_today(),
        variant="SH1-C2",
        deal=deal_get(code=GameCode("SH1", "C2", taken.number)),
        proven=True,
        par=80,
    )
    player = make_player()
    drawn = {start(player, {"random": "SH1-C4"})["code"] for _ in range(10)}
    drawn |= {
        practice.practice_deal_draw(variant="SH1-C4").deal.code for _ in range(300)
    }  # (19/20)^300: without the rule it would be drawn
    assert not drawn & same_cards
    assert drawn <= {e.deal.code for e in ProvenDeal.objects.filter(variant="SH1-C4")}
    # Any deal keeps away from it too (a million deals: checked by the rule, not by luck).
    assert practice.practice_deal_draw(variant="SH1-C4", proven=False).deal.code not in same_cards


# --- the last position that could still be won ----------------------------------------------


def play(client: Client, attempt_id: int, actions: list[dict[str, Any]], seq: int = 0) -> int:
    for action in actions:
        response = client.send(f"/api/games/{attempt_id}/actions/", {"seq": seq, "action": action})
        assert response.status_code == 200, response.content
        seq += 1
    return seq


def test_a_dead_end_learns_how_many_undos_back_the_last_winnable_position_is(make_player):
    actions, undos = losing_line()
    assert 1 < undos < len(actions) - 10
    player = make_player()
    game = start(player, {"code": LOSE_CODE})
    # Before the loss: not known to be lost, so nothing is said.
    seq = play(player, game["id"], actions[:5])
    assert_error(last_winnable(player, game["id"]), 409, "not_lost")
    seq = play(player, game["id"], actions[5:], seq)
    assert player.get(f"/api/games/{game['id']}/").json()["view"]["dead_end"] is True
    answer = last_winnable(player, game["id"])
    assert answer.status_code == 200, answer.content
    assert answer.json() == {"seq": seq, "undos": undos, "settled": True}
    assert last_winnable(player, game["id"]).json() == answer.json()  # kept: asked again
    # Through the ordinary action path, one undo at a time: a winnable position,
    # and one undo fewer would not be.
    seq = play(player, game["id"], [{"type": "undo"}] * (undos - 1), seq)
    before = load_game(Attempt.objects.get(pk=game["id"]).state)
    assert solve(before, nodes=300_000).outcome is Outcome.UNWINNABLE
    play(player, game["id"], [{"type": "undo"}], seq)
    after = load_game(Attempt.objects.get(pk=game["id"]).state)
    assert solve(after, nodes=300_000).outcome is Outcome.SOLVED
    assert after.piles == replay(LOSE_CODE, actions[: len(actions) - undos]).piles


def test_last_winnable_says_why_not(make_player, anon):
    owner, other = make_player(), make_player()
    actions, _ = losing_line()
    game = start(owner, {"code": LOSE_CODE})
    play(owner, game["id"], actions)
    assert_error(last_winnable(other, game["id"]), 403, "not_yours")
    assert_error(last_winnable(anon, game["id"]), (401, 403))
    assert_error(last_winnable(owner, 999_999), 404, "not_found")
    owner.send(f"/api/games/{game['id']}/resign/")
    assert_error(last_winnable(owner, game["id"]), 409, "finished")
    # A deal lost from its start (1-cell deal 2: one move from a dead end):
    # every position undo reaches is proven lost, the deal itself too.
    lost = new_game("SH1-C1-AAAAAAC")
    assert solve(lost).outcome is Outcome.UNWINNABLE and not lost.is_dead_end()
    move = next(m for m in lost.legal_moves if lost.changes_something(m))
    lost.apply(move)
    assert lost.is_dead_end()
    doomed = start(owner, {"code": "SH1-C1-AAAAAAC"})
    play(owner, doomed["id"], [move.to_json()])
    assert_error(last_winnable(owner, doomed["id"]), 409, "deal_lost")


def test_easy_harp_is_always_refused_alike_and_nothing_of_its_hidden_cards_shows(make_player):
    """An attacker asks at every step of two Easy Harp games — today's daily and
    a practice deal — for the last winnable position: the answer is the same
    refusal whatever the cards (nothing derived from them), and names none."""
    player = make_player()
    answers = set()
    for body in ({"daily": "EH1-N"}, {"random": "EH1-N", "any": True}):
        game = start(player, body)
        seq = 0
        rng = random.Random(7)
        for _ in range(25):
            response = last_winnable(player, game["id"])
            assert_error(response, 409, "hidden_cards")
            answers.add(response.content)
            engine = engine_state(game["id"])
            check_hidden(response.json(), engine, f"last-winnable of {game['id']} at {seq}")
            moves = list(engine.legal_moves)
            action = rng.choice(moves).to_json() if moves else {"type": "undo"}
            if rng.random() < 0.1 and seq:
                action = Undo().to_json()
            seq = play(player, game["id"], [action], seq)
    assert len(answers) == 1, answers
