"""Auto-finish in a real browser (issue 15, deliverable 5): once only foundation
moves remain, the board offers Finish; a click plays the moves the server
listed, one ordinary action after another, and the game is won — every one of
them logged on the server as an action of its own.

The moves leading to that position are posted from the page's own session over
the API (the drag tests are in ``test_pages.py``); the page follows them over
its websocket like any action made elsewhere.
"""

from __future__ import annotations

import pytest

from games.engine import new_game
from tests.support.browser import (
    api,
    assert_board_is,
    post_actions,
    screenshot,
    sign_up,
    start_practice,
    wait_moves,
)

DEALS = {
    "SH1-C4-AAAAAJ2": 61,  # the solver's line: 61 moves, then 31 foundation moves remain
    "EH1-N-AAAAAAE": 304,  # 304 moves, then nothing hidden or to draw: 30 remain
}


@pytest.mark.parametrize("code", DEALS)
def test_finish_plays_the_listed_moves_and_wins(new_page, code):
    from tests.support.search import find_win

    line = find_win(code)
    assert line is not None
    lead = DEALS[code]
    page = new_page()
    sign_up(page)
    attempt = start_practice(page, code)
    assert page.locator("#finish").is_hidden()  # a fresh deal: nothing to finish

    # Up to one move before the finishing position: still no Finish.
    game = new_game(code)
    for action in line[: lead - 1]:
        game.apply(action)
    seq = post_actions(page, attempt, 0, [a.to_json() for a in line[: lead - 1]])
    wait_moves(page, game.moves)
    assert game.finishing_moves() == []
    assert page.locator("#finish").is_hidden()

    # The last move before it, dragged or not, makes the server list the finish.
    game.apply(line[lead - 1])
    seq = post_actions(page, attempt, seq, [line[lead - 1].to_json()])
    finish = game.finishing_moves()
    assert finish
    page.wait_for_selector("#finish", state="visible")
    assert_board_is(page, game)
    screenshot(page, f"finish-{code[:3]}")

    page.click("#finish")
    page.wait_for_selector("#win", state="visible", timeout=60_000)
    for move in finish:
        game.apply(move)
    assert game.won
    wait_moves(page, game.moves)
    assert page.locator("#finish").is_hidden()
    screenshot(page, f"finish-{code[:3]}-won")

    # On the server: each finishing move an ordinary, logged action; the game won.
    body = api(page, "GET", f"/api/games/{attempt}/")
    assert body["status"] == "won" and body["seq"] == seq + len(finish)
    assert body["score"] == game.score
    replay = api(page, "GET", f"/api/games/{attempt}/replay/")
    assert replay["actions"][seq:] == [m.to_json() for m in finish]
    assert len(replay["log"]) == seq + len(finish)
