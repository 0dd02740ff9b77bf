"""The web client in a real browser (issue 6): sign up, play today's Seahaven
deal by drag and double click, a refusal naming the rule, undo, reload and go
on, a practice deal played to a win, its replay stepped with the keys, a live
game watched from a second browser, a leaderboard that updates by itself.

The tests read the board from the DOM hooks of ``frontend/static/frontend/js/
board.js`` (``.pile[data-pile]``, ``.card[data-card][data-index]``, ``#moves``,
…) and check it against our engine: the page must show exactly the server's
position.
"""

from __future__ import annotations

import datetime as dt
import re

import pytest

from games.engine import DoubleTap, IllegalActionError, Move, new_game, solve
from games.engine.solver import Outcome
from tests.support.browser import (
    WIN_CODE,
    assert_board_is,
    board_piles,
    card_locator,
    daily_game,
    drag,
    moves_shown,
    open_daily,
    play,
    refused_move,
    screenshot,
    sign_up,
    start_practice,
    wait_moves,
)

# --- helpers -----------------------------------------------------------------------------


# --- the tests ----------------------------------------------------------------------------


def test_sign_up_play_the_daily_by_drag_and_double_click_refusal_undo_reload(new_page, server):
    page = new_page()
    sign_up(page)
    page.wait_for_selector('[data-variant="SH1-C4"]')
    screenshot(page, "lobby")
    open_daily(page, "SH1-C4")
    game = daily_game(page, server, "SH1-C4")
    assert_board_is(page, game)

    # A card dragged from a column onto another pile.
    move = min(
        (m for m in game.legal_moves if isinstance(m, Move) and m.source[0] == "t"),
        key=lambda m: m.target[0] != "t",  # onto a column if there is one
    )
    play(page, game, move)
    assert_board_is(page, game)

    # A double click plays a card where the app's double tap puts it.
    for pile in game.columns:
        if not game.piles[pile]:
            continue
        try:
            resolved = game.copy().apply(DoubleTap(pile))
        except IllegalActionError:
            continue
        break
    else:
        pytest.fail("no card can be double-tapped")
    card_locator(page, pile, len(game.piles[pile]) - 1).dblclick()
    game.apply(resolved)
    wait_moves(page, game.moves)
    assert_board_is(page, game)

    # A move the rules refuse: the message names the rule; nothing changes.
    bad = refused_move(game)
    drag(page, game, bad)
    page.wait_for_function("() => document.querySelector('#message').textContent.trim() !== ''")
    assert "onto" in page.inner_text("#message") or "only" in page.inner_text("#message")
    assert moves_shown(page) == game.moves
    assert_board_is(page, game)

    # Undo, with the button.
    page.click("#undo")
    game.apply_json({"type": "undo"})
    wait_moves(page, game.moves)
    assert_board_is(page, game)
    screenshot(page, "board-seahaven")

    # A reload continues where the player was.
    page.reload()
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    wait_moves(page, game.moves)
    assert_board_is(page, game)


def test_a_practice_deal_played_to_a_win_and_its_replay_stepped_with_the_keys(new_page):
    result = solve(new_game(WIN_CODE))
    assert result.outcome is Outcome.SOLVED
    page = new_page()
    sign_up(page)
    attempt = start_practice(page, WIN_CODE)
    game = new_game(WIN_CODE)
    for action in result.line:
        play(page, game, action)
    assert game.won
    page.wait_for_selector("#win", state="visible")
    assert "520" in page.inner_text("#win")
    screenshot(page, "win")

    page.goto(f"/replay/{attempt}/")
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    replayed = new_game(WIN_CODE)
    assert board_piles(page)["t1"] == replayed.view(full=True)["piles"]["t1"]
    page.focus("#board")
    for step in range(3):
        page.keyboard.press("ArrowRight")
        replayed.apply(result.line[step])
    page.wait_for_function("() => document.querySelector('#replay-move').textContent.includes('3')")
    assert board_piles(page) == {
        p: c for p, c in replayed.view(full=True)["piles"].items() if p in board_piles(page)
    }
    page.keyboard.press("ArrowLeft")
    page.wait_for_function("() => document.querySelector('#replay-move').textContent.includes('2')")
    assert re.search(r"[?&]move=2\b", page.url)
    screenshot(page, "replay")
    # The shared URL opens at that move.
    other = new_page()
    sign_up(other)
    other.goto(f"/replay/{attempt}/?move=2")
    other.wait_for_function(
        "() => document.querySelector('#replay-move').textContent.includes('2')"
    )


def test_a_live_game_watched_from_a_second_browser(new_page):
    player, watcher = new_page(), new_page()
    sign_up(player)
    sign_up(watcher)
    attempt = start_practice(player, WIN_CODE)
    game = new_game(WIN_CODE)
    line = solve(game.copy()).line
    play(player, game, line[0])

    watcher.goto("/live/")
    watcher.click(f'a[href="/watch/{attempt}/"]')
    watcher.wait_for_selector("#board .pile[data-pile=t1] .card")
    wait_moves(watcher, game.moves)
    assert_board_is(watcher, game)
    for action in line[1:4]:
        play(player, game, action)
        wait_moves(watcher, game.moves)  # pushed over the websocket, no reload
    assert_board_is(watcher, game)
    assert watcher.locator("#undo").count() == 0 or not watcher.is_visible("#undo")


def test_the_leaderboard_updates_when_another_player_finishes(new_page):
    today = dt.datetime.now(dt.UTC).date().isoformat()
    viewer, finisher = new_page(), new_page()
    sign_up(viewer)
    name = sign_up(finisher)
    viewer.goto(f"/leaderboard/{today}/SH1-C4/")
    viewer.wait_for_selector("#leaderboard")
    assert viewer.locator(f'tr[data-player="{name}"]').count() == 0

    open_daily(finisher, "SH1-C4")
    finisher.once("dialog", lambda dialog: dialog.accept())
    finisher.click("#resign")
    # The row appears without a reload (the leaderboard's websocket).
    viewer.wait_for_selector(f'tr[data-player="{name}"]')
    screenshot(viewer, "leaderboard")


def test_easy_harp_fits_a_phone(new_page, server):
    page = new_page(width=375, height=740)
    sign_up(page)
    open_daily(page, "EH1-N")
    game = daily_game(page, server, "EH1-N")
    assert_board_is(page, game)
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 375, f"the board is {width} px wide on a 375-px phone"
    screenshot(page, "board-easy-harp-phone")


def test_the_language_is_the_accounts_and_refusals_are_translated(new_page, server):
    """A player switches to Bulgarian in the settings: the pages, and the rule of
    a refused move (from its code, not the English sentence), are in Bulgarian;
    a browser that asks for Turkish gets Turkish before signing in."""
    page = new_page()
    sign_up(page)
    page.click("#settings-open")
    with page.expect_navigation():
        page.select_option("#set-language", "bg")
    page.wait_for_selector("#deals[aria-busy=false]")
    assert page.evaluate("document.documentElement.lang") == "bg"
    nav = page.inner_text("header nav")
    assert re.search("[а-яА-Я]", nav) and "Rules" not in nav, nav
    open_daily(page, "SH1-C4")
    game = new_game(server.daily("SH1-C4")["code"])
    bad = refused_move(game)
    drag(page, game, bad)
    page.wait_for_function("() => document.querySelector('#message').textContent.trim() !== ''")
    message = page.inner_text("#message")
    assert re.search("[а-яА-Я]", message), message  # Cyrillic: translated
    assert "cannot go onto" not in message
    screenshot(page, "board-seahaven-bg")

    visitor = new_page(locale="tr-TR")
    visitor.goto("/rules/")
    assert visitor.evaluate("document.documentElement.lang") == "tr"
    assert "Seahaven Towers" in visitor.inner_text("main")
