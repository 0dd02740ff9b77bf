"""The replay viewer like lichess (issue 15, deliverable 6), in real Chromium: a
move list with one entry per logged action (undos named as undos), "Move k of N"
counting as the game's move counter does (RULES.md C5: an undo adds nothing),
entries that jump to their position, start and end, and "Show hidden cards" only
on a game that hides cards (Easy Harp, never Seahaven).

Games are played through the JSON API from the signed-in page (the pointer is
tested in ``test_pages.py``); what the page shows is checked against our engine.
"""

from __future__ import annotations

import time
from typing import Any

from games.engine import Game, Move, Stock, new_game
from tests.support.browser import EASY_HARP, api, board_piles, screenshot, sign_up

SEAHAVEN = "SH1-C4-AAAAAJ2"
UNDO = {"type": "undo"}


def first_move(game: Game) -> Move:
    return next(m for m in game.legal_moves if isinstance(m, Move))


def played_game(page: Any, code: str, script: str) -> tuple[int, list[Game]]:
    """A practice game on ``code`` played through the API by ``script`` (M: the
    first legal move, S: the stock, U: undo), then resigned. Returns its id and
    our engine's game after each action (``games[0]`` the deal)."""
    attempt = api(page, "POST", "/api/games/", {"code": code})["id"]
    game = new_game(code)
    games = [game.copy()]
    for seq, letter in enumerate(script):
        action = {"M": lambda: first_move(game).to_json(), "S": Stock().to_json, "U": lambda: UNDO}
        data = action[letter]()
        api(page, "POST", f"/api/games/{attempt}/actions/", {"seq": seq, "action": data})
        game.apply_json(data)
        games.append(game.copy())
    api(page, "POST", f"/api/games/{attempt}/resign/")
    return attempt, games


def open_replay(page: Any, attempt: int) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/replay/{attempt}/")
    page.wait_for_function("() => document.querySelector('#replay-move').textContent !== ''")
    assert not errors, errors
    page.wait_for_selector("#replay-moves li button")
    page.wait_for_function("() => document.querySelector('#replay-move').textContent !== ''")


def move_line(page: Any) -> str:
    return page.inner_text("#replay-move").strip()


def columns_shown(page: Any) -> dict[str, list[str | None]]:
    return {p: c for p, c in board_piles(page).items() if p[0] == "t"}


def assert_shows(page: Any, game: Game, step: int, *, full: bool) -> None:
    """The board and the counters show ``game``, the position after ``step`` actions."""
    view = game.view(full=full)
    expected = {p: c for p, c in view["piles"].items() if p[0] == "t"}
    page.wait_for_function(
        "step => new URL(location.href).searchParams.get('move') === String(step)", arg=step
    )
    deadline = time.monotonic() + 3  # drawn within a moment (the next animation frame)
    while columns_shown(page) != expected and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert columns_shown(page) == expected
    assert page.inner_text("#moves").strip() == str(game.moves)
    current = page.locator("#replay-moves button[aria-current]")
    if step:
        assert current.count() == 1
        assert current.get_attribute("data-step") == str(step)
        assert current.get_attribute("aria-current") == "step"
    else:
        assert current.count() == 0


def test_the_move_list_counts_as_the_move_counter_and_jumps(new_page):
    page = new_page()
    sign_up(page)
    script = "MMUMUUMMM"  # 9 actions, 3 of them undos: 6 moves (RULES.md C5)
    attempt, games = played_game(page, SEAHAVEN, script)
    final = games[-1].moves
    assert final == 6
    assert api(page, "GET", f"/api/games/{attempt}/")["view"]["moves"] == final
    open_replay(page, attempt)

    # One entry per logged action, undos named as such and numberless.
    entries = page.locator("#replay-moves li > button.move-entry")
    assert entries.count() == len(script)
    for step, letter in enumerate(script, start=1):
        entry = page.locator(f'#replay-moves button[data-step="{step}"]')
        name = entry.get_attribute("aria-label")
        text = entry.inner_text()
        number = entry.locator(".move-no").inner_text().strip()
        if letter == "U":
            assert name == "Undo" and "Undo" in text, (step, name, text)
            assert "undo" in entry.get_attribute("class").split()
            assert number == "↶"
        else:
            after = games[step].moves
            assert name.startswith(f"Move {after}: "), (step, name)
            assert number == str(after), (step, number)
            assert "→" in text and "Undo" not in text

    # It opens at the deal: move 0 of the game's final count, not of 9 actions.
    assert move_line(page).startswith(f"Move 0 of {final} — ")
    assert_shows(page, games[0], 0, full=True)

    # A click on an entry jumps to the position after that action.
    page.click('#replay-moves button[data-step="4"]')
    assert_shows(page, games[4], 4, full=True)
    assert move_line(page).startswith(f"Move {games[4].moves} of {final} — ")
    page.click('#replay-moves button[data-step="5"]')  # an undo: the counter stays
    assert_shows(page, games[5], 5, full=True)
    assert move_line(page) == f"Move {games[5].moves} of {final} — Undo"
    assert games[5].moves == games[4].moves

    # End and start.
    page.click("#replay-end")
    assert_shows(page, games[-1], len(script), full=True)
    assert move_line(page).startswith(f"Move {final} of {final} — ")
    assert page.is_disabled("#replay-end") and page.is_disabled("#replay-next")
    screenshot(page, "replay-move-list")
    page.click("#replay-start")
    assert_shows(page, games[0], 0, full=True)
    assert page.is_disabled("#replay-start")

    # The keys still work, and focus in the list follows the current entry.
    page.focus("#board-wrap")
    page.keyboard.press("End")
    assert_shows(page, games[-1], len(script), full=True)
    page.keyboard.press("ArrowLeft")
    assert_shows(page, games[-2], len(script) - 1, full=True)
    page.focus('#replay-moves button[data-step="2"]')
    page.keyboard.press("Enter")
    assert_shows(page, games[2], 2, full=True)
    page.keyboard.press("ArrowRight")
    assert_shows(page, games[3], 3, full=True)
    focused = page.evaluate("() => document.activeElement.dataset.step")
    assert focused == "3"
    assert page.get_attribute('#replay-moves button[data-step="3"]', "tabindex") == "0"

    # Seahaven hides nothing: no "Show hidden cards".
    assert page.locator("#replay-reveal").count() == 0
    assert "Show hidden cards" not in page.inner_text("#replay")


def test_an_easy_harp_replay_offers_hidden_cards_and_keeps_the_current_entry_in_view(new_page):
    page = new_page(width=1280, height=720)
    sign_up(page)
    script = "S" * 24 + "U" + "S" * 6 + "M"  # 32 actions: 31 moves
    attempt, games = played_game(page, EASY_HARP, script)
    final = games[-1].moves
    assert final == 31
    open_replay(page, attempt)
    assert page.locator("#replay-moves li").count() == len(script)
    assert page.get_attribute('#replay-moves button[data-step="1"]', "aria-label") == (
        "Move 1: Card drawn from the stock"
    )
    assert page.inner_text('#replay-moves button[data-step="25"]').strip().endswith("Undo")

    # The current entry is scrolled into the list's view (the list scrolls, not the page).
    page.click("#replay-end")
    assert_shows(page, games[-1], len(script), full=False)
    assert move_line(page).startswith(f"Move {final} of {final} — ")
    inside = page.evaluate(
        """() => {
            const list = document.querySelector('#replay-moves').getBoundingClientRect();
            const item = document.querySelector('#replay-moves [aria-current]')
                .getBoundingClientRect();
            return item.top >= list.top && item.bottom <= list.bottom
                && document.querySelector('#replay-moves').scrollTop > 0;
        }"""
    )
    assert inside

    # Face-down cards: the control is there, and shows them.
    assert page.is_visible("#replay-reveal")
    assert "Show hidden cards" in page.inner_text(".replay-controls")
    down = page.locator('#board .pile[data-pile^="t"] .card[data-card="down"]')
    assert down.count() > 0
    page.check("#replay-reveal")
    page.wait_for_function(
        """() => !document.querySelector('#board .pile[data-pile^="t"] .card[data-card="down"]')"""
    )
    assert columns_shown(page) == {
        p: c for p, c in games[-1].view(full=True)["piles"].items() if p[0] == "t"
    }
    screenshot(page, "replay-easy-harp-revealed")

    # On a phone the list is a strip under the board, still one entry per action.
    phone = new_page(width=390, height=844)
    sign_up(phone)
    open_replay(phone, attempt)
    phone.click("#replay-end")
    assert_shows(phone, games[-1], len(script), full=False)
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 390, width
    screenshot(phone, "replay-easy-harp-phone")
