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
import secrets
import time
from typing import Any
from urllib.parse import urlparse

import pytest

from games.engine import DoubleTap, Game, IllegalActionError, Move, Stock, new_game, solve
from games.engine.solver import Outcome

from .conftest import screenshot

PASSWORD = "correct horse battery staple"
WIN_CODE = "SH1-C4-AAAAAJ2"


# --- helpers -----------------------------------------------------------------------------


def sign_up(page: Any, name: str | None = None) -> str:
    name = name or f"p{secrets.token_hex(4)}"
    page.goto("/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(lambda url: urlparse(url).path == "/")  # the lobby, signed in
    page.wait_for_selector("#deals[aria-busy=false]")
    return name


def board_piles(page: Any) -> dict[str, list[str | None]]:
    """The board as drawn: each pile's cards bottom to top (``None``: face down)."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#board .pile[data-pile]')]
            .map(p => [p.dataset.pile, [...p.querySelectorAll('.card[data-card]')]
                .sort((a, b) => a.dataset.index - b.dataset.index)
                .map(c => c.dataset.card === 'down' ? null : c.dataset.card)]))"""
    )


def assert_board_is(page: Any, game: Game) -> None:
    """The board shows ``game``'s player view (drawn within a moment: the page
    renders on the next animation frame)."""
    # The stock is drawn as a heap (its count), never its cards.
    expected = {pile: cards for pile, cards in game.view()["piles"].items() if pile != "s"}
    deadline = time.monotonic() + 3
    while True:
        shown = board_piles(page)
        shown.pop("s", None)
        if shown == expected or time.monotonic() > deadline:
            break
        page.wait_for_timeout(50)
    assert shown == expected


def moves_shown(page: Any) -> int:
    return int(page.inner_text("#moves").strip() or 0)


def wait_moves(page: Any, n: int) -> None:
    page.wait_for_function(
        "n => parseInt(document.querySelector('#moves').textContent.trim() || '0') === n", arg=n
    )


def card_locator(page: Any, pile: str, index: int) -> Any:
    return page.locator(f'#board .pile[data-pile="{pile}"] .card[data-index="{index}"]')


def wait_still(page: Any) -> None:
    """Until no card of the board is moving (a card glides ≤ 150 ms to its new
    place, issue 15): a card is grabbed where it is drawn."""
    page.wait_for_function(
        """() => !document.getAnimations().some(a => a.playState === 'running'
            && a.effect && a.effect.target && a.effect.target.closest
            && a.effect.target.closest('#board'))"""
    )


def drag(page: Any, game: Game, move: Move) -> None:
    """Drag the card ``count`` from the top of ``move.source`` onto ``move.target``."""
    wait_still(page)
    index = len(game.piles[move.source]) - move.count
    card = card_locator(page, move.source, index).bounding_box()
    target = page.locator(f'#board .pile[data-pile="{move.target}"]').bounding_box()
    assert card and target, (move, card, target)
    x, y = card["x"] + card["width"] / 2, card["y"] + min(12, card["height"] / 2)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 10, y + 10, steps=3)
    page.mouse.move(
        target["x"] + target["width"] / 2, target["y"] + min(30, target["height"] / 2), steps=8
    )
    page.mouse.up()


def play(page: Any, game: Game, action: Move | Stock) -> None:
    """Do ``action`` with the pointer and wait until the page shows it played."""
    before = game.moves
    if isinstance(action, Stock):
        page.click('#board .pile[data-pile="s"]')
    else:
        drag(page, game, action)
    game.apply(action)
    wait_moves(page, before + 1)


def refused_move(game: Game) -> Move:
    """A move between two columns the rules refuse in ``game``'s position."""
    return next(
        Move(src, dst)
        for src in game.columns
        for dst in game.columns
        if src != dst and game.piles[src] and game.piles[dst] and not game.is_legal(Move(src, dst))
    )


def open_daily(page: Any, variant: str) -> int:
    page.goto("/")
    page.click(f'.deal[data-variant="{variant}"] .deal-actions .primary')  # Play or Continue
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    return int(page.url.rstrip("/").split("/")[-1])


def start_practice(page: Any, code: str) -> int:
    page.goto("/")
    page.click("#new-game")
    page.check("input[name=kind][value=code]")
    page.fill("#new-game-code", code)
    page.click("#new-game-start-code")
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    return int(page.url.rstrip("/").split("/")[-1])


def shown_code(page: Any) -> str:
    return page.inner_text("#code").strip()


def daily_game(page: Any, server: Any, variant: str) -> Game:
    """Today's daily deal just opened on ``page``, from the server's database: its
    code is secret while the day runs, so the page shows the day instead."""
    code = server.daily(variant)["code"]
    assert code not in page.content()
    assert shown_code(page) == f"Daily · {dt.datetime.now(dt.UTC).date().isoformat()}"
    return new_game(code)


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
