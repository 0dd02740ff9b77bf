"""A layout that uses the screen (issue 24, deliverable 4), in real Chromium:
on phones held upright the fan of a column's buried cards opens where the board
has height (each buried face-up card's strip at least 32 px at 360x640), the
toolbar is a bar at the bottom, in thumb reach; a refusal is a toast that does
not move the board; nothing is wider than the screen at any of the five sizes,
on the play, watch, replay, lobby and leaderboard pages. Read from bounding
boxes; a screenshot of each.
"""

from __future__ import annotations

from typing import Any

import pytest

from games.engine import Move, Stock, new_game
from tests.support.browser import (
    WIN_CODE,
    drag,
    post_actions,
    refused_move,
    screenshot,
    settle,
    sign_up,
    start_practice,
    wait_moves,
    wait_still,
)

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1366, 768)]
PORTRAIT = [(360, 640), (390, 844)]
EASY_HARP = "EH1-N-AAAAAAF"

# Each column's cards, bottom first: face up or down, and the strip of it the
# card above leaves in sight (the last card: its whole height).
STRIPS = """() => Object.fromEntries([...document.querySelectorAll('#board .pile[data-pile^=t]')]
  .map((pile) => {
    const cards = [...pile.querySelectorAll('.card')]
      .sort((a, b) => a.dataset.index - b.dataset.index);
    return [pile.dataset.pile, cards.map((card, i) => {
      const b = card.getBoundingClientRect();
      const next = cards[i + 1] && cards[i + 1].getBoundingClientRect();
      return {down: card.dataset.card === 'down', strip: next ? next.top - b.top : b.height,
              width: b.width, height: b.height};
    })];
  }))"""

# Every element that reaches past the window's sides, unless a box of its own
# that scrolls holds it in (a table that scrolls sideways); a box that only
# clips (overflow: hidden) does not count: what it cuts is cut for the player too.
TOO_WIDE = """() => {
  const vw = document.documentElement.clientWidth;
  const scrolled = (el) => {
    for (let up = el.parentElement; up && up !== document.body; up = up.parentElement)
      if (['auto', 'scroll'].includes(getComputedStyle(up).overflowX)) return true;
    return false;
  };
  const out = [];
  for (const el of document.body.querySelectorAll('*')) {
    const b = el.getBoundingClientRect();
    if (b.width <= 1 || b.height <= 1) continue; // .sr-only and the like
    if (el.closest('dialog:not([open])')) continue;
    if ((b.left < -0.5 || b.right > vw + 0.5) && !scrolled(el))
      out.push(`${el.tagName.toLowerCase()}#${el.id}.${el.className} `
        + `${Math.round(b.left)}..${Math.round(b.right)}`);
  }
  return {vw, scrollW: document.documentElement.scrollWidth, out: out.slice(0, 6)};
}"""


def rect(page: Any, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not displayed"
    return found


def check_not_too_wide(page: Any, where: str) -> None:
    found = page.evaluate(TOO_WIDE)
    assert found["scrollW"] <= found["vw"], f"{where}: the page scrolls sideways {found}"
    assert not found["out"], f"{where}: wider than the screen: {found['out']}"


def easy_harp_with_a_fan(page: Any) -> Any:
    """An Easy Harp practice game with a column of three face-up cards (draws,
    then the waste and a column onto t9), played over the API."""
    attempt = start_practice(page, EASY_HARP)
    game = new_game(EASY_HARP)
    actions: list[Any] = []
    while max(len(game.piles[c]) - game.down[c] for c in game.columns) < 3:
        move = next(
            (
                Move(src, dst)
                for src in ["w", *game.columns]
                for dst in game.columns
                if src != dst and game.piles[src] and game.is_legal(Move(src, dst))
            ),
            None,
        )
        action = move or Stock()
        game.apply(action)
        actions.append(action)
        assert len(actions) < 100
    post_actions(page, attempt, 0, [a.to_json() for a in actions])
    wait_moves(page, game.moves)
    return attempt


@pytest.mark.parametrize("name", ["seahaven", "easy-harp"])
def test_portrait_phones_open_the_fan_and_put_the_toolbar_in_thumb_reach(new_page, name):
    page = new_page(360, 640)
    sign_up(page)
    if name == "seahaven":
        start_practice(page, WIN_CODE)
    else:
        easy_harp_with_a_fan(page)
    for size in PORTRAIT:
        vw, vh = size
        page.set_viewport_size({"width": vw, "height": vh})
        settle(page)
        page.wait_for_timeout(200)
        screenshot(page, f"portrait-{name}-{vw}x{vh}")
        columns = page.evaluate(STRIPS)
        up = [c["strip"] for cards in columns.values() for c in cards[:-1] if not c["down"]]
        down = [c["strip"] for cards in columns.values() for c in cards[:-1] if c["down"]]
        card = next(iter(columns.values()))[0]
        print(
            name,
            size,
            f"card {card['width']}x{card['height']}",
            "face-up strips",
            sorted(set(up)),
            "face-down strips",
            sorted(set(down)),
        )
        # Buried face-up cards: a fingertip's strip each (before: 21 px at 360x640,
        # 23 px at 390x844, their corner only).
        assert up and min(up) >= 32, (size, sorted(set(up)))
        if down:  # Easy Harp's face-down cards: more than a line each (before: 6-7 px)
            assert min(down) >= 10, (size, sorted(set(down)))

        # The toolbar: a bar across the bottom of the screen, every button in it.
        bar = rect(page, "#play .toolbar")
        assert bar["y"] + bar["height"] == pytest.approx(vh, abs=1), bar
        assert bar["x"] <= 0.5 and bar["width"] >= vw - 1, bar
        for hook in ("undo", "new-game", "resign"):
            button = rect(page, f"#{hook}")
            assert button["y"] >= vh * 0.85 and button["y"] + button["height"] <= vh + 0.5, (
                hook,
                button,
            )
            assert button["height"] >= 44 and button["width"] >= 44, (hook, button)
        # …and it covers no card: every column ends above it.
        cards = page.evaluate(
            "() => Math.max(...[...document.querySelectorAll('#board .card')]"
            ".map(c => c.getBoundingClientRect().bottom))"
        )
        assert cards <= bar["y"], (cards, bar)
        check_not_too_wide(page, f"{name} at {size}")

    # Sideways and on a desk, the toolbar stays in the header line.
    for vw, vh in ((640, 360), (1366, 768)):
        page.set_viewport_size({"width": vw, "height": vh})
        settle(page)
        undo = rect(page, "#undo")
        assert undo["y"] + undo["height"] <= rect(page, "#board")["y"], (vw, vh, undo)


@pytest.mark.parametrize("size", [(360, 640), (640, 360), (1366, 768)])
def test_a_refusal_is_a_toast_that_does_not_move_the_board(new_page, size):
    vw, vh = size
    page = new_page(vw, vh)
    sign_up(page)
    start_practice(page, WIN_CODE)
    settle(page)
    boxes = """() => [document.getElementById('board'), ...document.querySelectorAll('.pile')]
        .map(el => el.getBoundingClientRect())
        .map(b => [b.left, b.top, b.width, b.height])"""
    before = page.evaluate(boxes)
    game = new_game(WIN_CODE)
    drag(page, game, refused_move(game))
    page.wait_for_selector("#message[data-kind=refusal]:not([hidden])")
    settle(page)  # the refused card is back in its column…
    wait_still(page)  # …and its pile's shake over
    screenshot(page, f"toast-{vw}x{vh}")
    assert page.evaluate(boxes) == before  # not pushed, not shifted
    toast = rect(page, "#message")
    assert toast["x"] >= 0 and toast["x"] + toast["width"] <= vw, toast
    assert toast["y"] >= 0 and toast["y"] + toast["height"] <= vh, toast
    assert page.get_attribute("#message", "role") == "status"
    if vw < vh:  # upright: over the board's foot, just above the bottom bar
        bar = rect(page, "#play .toolbar")
        assert bar["y"] - 40 <= toast["y"] + toast["height"] <= bar["y"], (toast, bar)
    else:  # over the header line, not over the board
        assert toast["y"] + toast["height"] <= rect(page, "#board")["y"], toast
    page.click("#message")
    page.wait_for_selector("#message", state="hidden")
    assert page.evaluate(boxes) == before


def test_nothing_is_wider_than_the_screen(new_page):
    page = new_page()
    sign_up(page)
    attempt = start_practice(page, WIN_CODE)
    pages = {"play": f"/play/{attempt}/", "lobby": "/", "leaderboard": "/leaderboard/"}
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        for kind, path in pages.items():
            page.goto(path)
            if kind == "play":
                settle(page)
            else:
                page.wait_for_load_state("networkidle")
            check_not_too_wide(page, f"{kind} at {size}")
    # A finished game: watched and replayed.
    page.goto(f"/play/{attempt}/")
    page.once("dialog", lambda d: d.accept())
    page.click("#resign")
    page.wait_for_selector("#notice:not([hidden])")
    for size in SIZES:
        page.set_viewport_size({"width": size[0], "height": size[1]})
        for kind in ("play", "watch", "replay"):
            page.goto(f"/{kind}/{attempt}/")
            settle(page)
            check_not_too_wide(page, f"{kind} (finished) at {size}")
            if size in PORTRAIT:
                screenshot(page, f"wide-{kind}-{size[0]}x{size[1]}")
