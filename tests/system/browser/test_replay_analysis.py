"""Where it went wrong (issue 27, deliverable 1) in the replay viewer, in real
Chromium: a lost practice game on a public numbered deal (analysed as it ends:
the server runs its tasks in-process) shows the panel, its losing move marked
in the move list; the jump lands on the position before it; the winning line
plays on the board to a won deal, and "Back to the game" returns. Also on a
phone, and from the keyboard; and a win shows its line against par.

The game is built so that the losing move is known
(``tests/support/postmortem.py``): the solver's line for a few moves, a
move after which the deal is proven lost, then a few more; the losing move is
played, undone and played again, so the seq the panel names is not its index
on the line.
"""

from __future__ import annotations

import time
from typing import Any

from games.engine import new_game, solve
from tests.support.browser import api, board_piles, post_actions, screenshot, sign_up
from tests.support.postmortem import HARP, LOST, WON, losing_game, some_moves

K = 5


def lost_game(page: Any) -> tuple[int, list[dict[str, Any]]]:
    """The constructed lost game, played from the page and resigned: its id and
    the actions sent (the losing one at seq K and again at K + 2)."""
    played, _ = losing_game(K)
    sent = [a.to_json() for a in played]
    sent = [*sent[: K + 1], {"type": "undo"}, *sent[K:]]
    attempt = api(page, "POST", "/api/games/", {"code": WON})["id"]
    post_actions(page, attempt, 0, sent)
    api(page, "POST", f"/api/games/{attempt}/resign/")
    return attempt, sent


def position(actions: list[dict[str, Any]]) -> dict[str, list[str | None]]:
    game = new_game(WON)
    for action in actions:
        game.apply_json(action)
    return game.view(full=True)["piles"]


def wait_board(page: Any, piles: dict[str, list[str | None]]) -> None:
    deadline = time.monotonic() + 5
    while board_piles(page) != piles and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert board_piles(page) == piles


def open_replay(page: Any, attempt: int) -> None:
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(f"/replay/{attempt}/")
    # Analysed on demand, in-process here: an Easy Harp search may take ANALYSIS_SECONDS.
    page.wait_for_selector("#analysis:not([hidden])", timeout=60_000)
    assert not errors, errors


def test_a_lost_game_shows_where_it_went_wrong_and_plays_the_winning_line(new_page):
    page = new_page(width=1280, height=800)
    sign_up(page)
    attempt, sent = lost_game(page)
    analysis = api(page, "GET", f"/api/games/{attempt}/analysis/")
    assert analysis["lost"]["seq"] == K + 2 and analysis["settled"] is True
    open_replay(page, attempt)

    assert page.inner_text("#analysis-title") == "Where it went wrong"
    text = page.inner_text("#analysis-text")
    # Move K + 2 by the move counter: the undone losing move counted too (RULES.md C5).
    assert text.startswith(f"Move {K + 2} (") and "lost the deal" in text, text
    losing = page.locator("#replay-moves button.losing")
    assert losing.count() == 1 and losing.get_attribute("data-step") == str(K + 3)
    assert "the move that lost the deal" in losing.get_attribute("aria-label")

    # The jump lands on the position before the losing move: ?move=K+2.
    page.click("#analysis-jump")
    page.wait_for_function("() => new URL(location.href).searchParams.get('move') === '7'")
    wait_board(page, position(sent[: K + 2]))
    screenshot(page, "replay-analysis-jump")

    # The winning line plays on the board to a won deal, then back to the game.
    page.click('#replay-speed [data-speed="4"]')
    page.click("#analysis-line")
    page.wait_for_function(
        "() => document.querySelector('#replay-move').textContent.endsWith('won')",
        timeout=60_000,
    )
    # Every card on the foundations: the deal is won.
    piles = board_piles(page)
    assert all(len(c) == 13 for p, c in piles.items() if p[0] == "f"), piles
    assert not any(c for p, c in piles.items() if p[0] in "tc"), piles
    screenshot(page, "replay-analysis-won-line")
    assert page.is_visible("#analysis-back")
    page.click("#analysis-back")
    page.wait_for_function("() => new URL(location.href).searchParams.get('move') === '7'")
    wait_board(page, position(sent[: K + 2]))
    assert page.is_hidden("#analysis-back")


def test_the_panel_works_from_the_keyboard_and_on_a_phone(new_page):
    page = new_page(width=390, height=844)
    sign_up(page)
    attempt, sent = lost_game(page)
    open_replay(page, attempt)
    assert page.is_visible("#analysis-jump") and page.is_visible("#analysis-line")
    box = page.locator("#analysis").bounding_box()
    assert box is not None and box["y"] + box["height"] <= 844 + 1, box  # on the screen
    page.focus("#analysis-jump")
    page.keyboard.press("Enter")
    page.wait_for_function("() => new URL(location.href).searchParams.get('move') === '7'")
    wait_board(page, position(sent[: K + 2]))
    # The keys go back to the board: → steps to the losing move itself.
    page.keyboard.press("ArrowRight")
    page.wait_for_function("() => new URL(location.href).searchParams.get('move') === '8'")
    screenshot(page, "replay-analysis-phone")


def test_a_win_shows_its_line_against_par(new_page):
    page = new_page(width=1280, height=800)
    sign_up(page)
    attempt = api(page, "POST", "/api/games/", {"code": WON})["id"]
    line = [a.to_json() for a in solve(new_game(WON)).line]
    post_actions(page, attempt, 0, line)
    open_replay(page, attempt)
    assert page.inner_text("#analysis-title") == "Your line against par"
    # A numbered deal outside the practice pool: no par known for it.
    assert page.inner_text("#analysis-text") == "No par is known for this deal."


def resigned_harp(page: Any) -> int:
    """A new player's Easy Harp game, 30 moves of the solver's line played, then
    resigned: still winnable when it ended. Its id."""
    sign_up(page)
    line = [a.to_json() for a in solve(new_game(HARP), nodes=20_000).line]
    attempt = api(page, "POST", "/api/games/", {"code": HARP})["id"]
    post_actions(page, attempt, 0, line[:30])
    api(page, "POST", f"/api/games/{attempt}/resign/")
    return attempt


def test_easy_harp_says_what_the_player_could_see(new_page):
    """A game that hides cards: the panel counts what the player could not see,
    and its button shows every card (the viewer's own "Show hidden cards")."""
    page = new_page(width=1280, height=800)
    attempt = resigned_harp(page)
    open_replay(page, attempt)
    seen = api(page, "GET", f"/api/games/{attempt}/analysis/")["lost"]["seen"]
    assert page.inner_text("#analysis-text") == "The game could still be won when it ended."
    said = page.inner_text("#analysis-seen")
    assert said == (
        "The solver knows every card; you could see all but"
        f" {seen['face_down']} cards face down and {seen['stock']} cards in the stock."
    ), said
    down = '#board .pile[data-pile^="t"] .card[data-card="down"]'
    page.click("#analysis-line")  # the line from the end: hidden cards stay hidden
    assert page.get_attribute("#analysis-reveal", "aria-pressed") == "false"
    page.wait_for_selector(down)
    page.click("#analysis-reveal")
    assert page.get_attribute("#analysis-reveal", "aria-pressed") == "true"
    assert page.is_checked("#replay-reveal")
    page.wait_for_function(f"() => !document.querySelector('{down}')")
    screenshot(page, "replay-analysis-easy-harp")


def test_a_deal_lost_from_its_start_says_so(new_page):
    page = new_page(width=1280, height=800)
    sign_up(page)
    attempt = api(page, "POST", "/api/games/", {"code": LOST})["id"]
    post_actions(page, attempt, 0, [m.to_json() for m in some_moves(new_game(LOST), 3)])
    api(page, "POST", f"/api/games/{attempt}/resign/")
    open_replay(page, attempt)
    assert page.inner_text("#analysis-text") == (
        "This deal could not be won from its start: no move lost it."
    )
    assert page.is_hidden("#analysis-jump") and page.is_hidden("#analysis-line")
    assert page.locator("#replay-moves button.losing").count() == 0


def test_an_unsettled_easy_harp_loss_never_says_no_one_could_have_won(new_page):
    """Issue 39: an analysis whose solver ran out of time said both "the solver ran
    out of time" and "no one could have won after this move". The server's own
    answer for a lost Easy Harp game, as an unsettled loss (the solver's time
    budget is the server's: the page is given the answer a busy server gives)."""
    page = new_page(width=390, height=844)
    attempt = resigned_harp(page)
    real = api(page, "GET", f"/api/games/{attempt}/analysis/")
    assert real["lost"]["seen"] and real["lost"]["positions"]

    def unsettled(route: Any) -> None:
        body = route.fetch().json()
        body["settled"] = False
        body["lost"].update(still_winnable=False, index=5, seq=5)
        route.fulfill(json=body)

    page.route(f"**/api/games/{attempt}/analysis/", unsettled)
    open_replay(page, attempt)
    text = page.inner_text("#analysis-text")
    assert "ran out of time" in text, text
    said = page.inner_text("#analysis-seen")
    assert "no one could have won" not in said.lower(), said
    assert said.startswith("The solver knows every card"), said
