"""Easy Harp as instant as Seahaven (issue 39, deliverable 1), in real Chromium
against the live daphne, the server's answers held back by the ``Relay``: a
stock tap draws its card at once (face down, turned by the answer), a pass
turns the waste over at once, an Undo back to a position the page saw is drawn
at once, and a drop on a pile the server did not list bounces at once — each
checked against our engine once the answer is let through. Before, each of
them waited a round trip (583 ms p50 for a stock tap at a 500 ms round trip)."""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import Move, Stock, Undo
from tests.support.browser import (
    EASY_HARP,
    api,
    assert_board_is,
    board_piles,
    drag,
    moves_shown,
    post_actions,
    refused_move,
    wait_moves,
    wait_still,
)
from tests.support.relay import RECORD_SHAKES, relayed_practice, wait_held

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]

# A press on a pile (or a button), as the browser dispatches it, and the board as
# drawn right after, in the same task: no answer can have come from the server yet.
PRESS_NOW = """(selector) => {
    const el = document.querySelector(selector);
    const box = el.getBoundingClientRect();
    const at = {bubbles: true, cancelable: true, pointerId: 9, pointerType: "touch", button: 0,
                clientX: box.left + box.width / 2, clientY: box.top + 6, isPrimary: true};
    if (el.tagName === "BUTTON") el.click();
    else {
        el.dispatchEvent(new PointerEvent("pointerdown", at));
        el.dispatchEvent(new PointerEvent("pointerup", at));
    }
    const board = document.getElementById("board");
    return {waiting: board.classList.contains("waiting"), piles: board.board.view.piles};
}"""

STOCK = '#board .pile[data-pile="s"]'


def stock_now(page: Any) -> dict[str, Any]:
    return page.evaluate(PRESS_NOW, STOCK)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_stock_tap_draws_at_once_and_the_answer_turns_the_card(new_page, width, height):
    page, relay, _, game = relayed_practice(new_page, EASY_HARP, width=width, height=height)
    wait_still(page)
    relay.hold = {"ack"}
    now = stock_now(page)
    assert now["waiting"], "the tap was not sent"
    # Drawn before any answer: one card off the stock, on the waste, face down.
    assert len(now["piles"]["s"]) == 58 and now["piles"]["w"] == [None], now["piles"]
    assert board_piles(page)["w"] == [None]
    assert moves_shown(page) == 0
    wait_held(page, relay, "ack")
    relay.release()  # the answer names the card: it turns
    game.apply(Stock())
    wait_moves(page, 1)
    assert_board_is(page, game)
    assert board_piles(page)["w"] == [game.view()["piles"]["w"][-1]]


def test_taps_made_while_one_is_in_flight_are_drawn_at_once_too(new_page):
    """Three taps in a row with no answer yet: each draws its card at once (the
    view's ``stock_taps`` says what the next taps do). When the first answer
    comes, its card turns and the two taps still on their way stay drawn."""
    page, relay, _, game = relayed_practice(new_page, EASY_HARP, width=360, height=640)
    wait_still(page)
    relay.hold = {"ack"}
    for n in (1, 2, 3):
        now = stock_now(page)
        assert len(now["piles"]["s"]) == 59 - n and now["piles"]["w"] == [None] * n, (n, now)
    wait_held(page, relay, "ack")
    relay.release_one()  # the first answer: its card turns, the next tap goes out
    game.apply(Stock())
    first = game.view()["piles"]["w"][-1]
    page.wait_for_function(
        "(card) => document.getElementById('board').board.view.piles.w[0] === card", arg=first
    )
    assert board_piles(page)["w"] == [first, None, None]
    assert len(board_piles(page)["s"]) == 56
    relay.release()
    for _ in range(2):
        game.apply(Stock())
    wait_moves(page, 3)
    assert_board_is(page, game)


def test_a_new_pass_turns_the_waste_over_at_once(new_page):
    page, relay, attempt, game = relayed_practice(new_page, EASY_HARP)
    seq = post_actions(page, attempt, 0, [{"type": "stock"}] * 59)
    for _ in range(59):
        game.apply(Stock())
    wait_moves(page, seq)
    wait_still(page)
    assert game.view()["stock"] == "pass"
    relay.hold = {"ack"}
    now = stock_now(page)
    assert now["piles"]["w"] == [] and now["piles"]["s"] == [None] * 59, now["piles"]
    wait_held(page, relay, "ack")
    relay.release()
    game.apply(Stock())
    wait_moves(page, seq + 1)
    assert_board_is(page, game)


def test_an_undo_the_page_can_know_is_drawn_at_once(new_page):
    page, relay, attempt, game = relayed_practice(new_page, EASY_HARP)
    # t2's ace to f1 turns up the card under it; Undo turns it down again.
    before = game.copy()
    drag(page, game, Move("t2", "f1"))
    game.apply(Move("t2", "f1"))
    wait_moves(page, 1)
    assert_board_is(page, game)
    wait_still(page)
    relay.hold = {"ack"}
    now = page.evaluate(PRESS_NOW, "#undo")
    assert now["waiting"]
    assert now["piles"]["f1"] == [] and now["piles"]["t2"] == [None, "AS"], now["piles"]
    assert_board_is(page, before)
    wait_held(page, relay, "ack")
    relay.release()
    game.apply(Undo())
    wait_moves(page, game.moves)
    assert_board_is(page, game)

    # After a reload the page has not seen the position before: it waits for the answer.
    page.reload()
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    page.wait_for_selector("#connection[data-state=open]")  # the stock tap's answer comes on it
    post_actions(page, attempt, 2, [{"type": "stock"}])  # seq 2: the move and the undo
    game.apply(Stock())
    wait_moves(page, game.moves)
    wait_still(page)
    relay.hold = {"ack"}
    now = page.evaluate(PRESS_NOW, "#undo")
    assert now["waiting"] and len(now["piles"]["w"]) == 1, now["piles"]
    wait_held(page, relay, "ack")
    relay.release()
    game.apply(Undo())
    wait_moves(page, game.moves)
    assert_board_is(page, game)


@pytest.mark.parametrize("rules", [False, True])
def test_a_drop_on_a_pile_the_server_did_not_list_bounces_at_once(new_page, rules):
    page, relay, _, game = relayed_practice(new_page, EASY_HARP)
    if not rules:  # the setting off: nothing to explain, nothing sent
        api(page, "PATCH", "/api/auth/settings/", {"interactive_rules": False})
        page.reload()
        page.wait_for_selector("#board .pile[data-pile=t1] .card")
    page.evaluate(RECORD_SHAKES)
    relay.hold = {"error"}
    move = refused_move(game)
    drag(page, game, move)
    # Back at once, before any answer: the pile shook, the board is the server's.
    shakes = page.evaluate("window.__shakes")
    assert set(shakes) == {move.source}, shakes
    assert_board_is(page, game)
    if rules:  # the server still says why, and the board does not shake twice
        wait_held(page, relay, "error")
        relay.release()
        page.wait_for_function("() => document.querySelector('#message').textContent.trim()")
        page.wait_for_timeout(100)
        assert page.evaluate("window.__shakes") == shakes
        assert relay.actions() == [move.to_json()]
    else:
        page.wait_for_timeout(300)
        assert relay.actions() == []
    assert moves_shown(page) == 0
