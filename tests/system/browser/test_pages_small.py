"""Small defects of the pages in real Chromium (issue 15, deliverable 8): layout
read from bounding boxes and computed styles."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

import pytest

from tests.support.browser import WIN_CODE, api, screenshot, sign_up, start_practice


def box(page, selector: str) -> dict[str, float]:
    found = page.locator(selector).first.bounding_box()
    assert found is not None, f"{selector} is not displayed"
    return found


def test_the_phone_leaderboard_keeps_the_result_column(new_page):
    page = new_page(width=360, height=640)
    page.goto("/leaderboard/")
    page.wait_for_selector("#lb-table")
    screenshot(page, "leaderboard-360x640")
    result = box(page, "#lb-table th.col-result")
    assert result["width"] > 0 and result["height"] > 0
    assert result["x"] >= 0 and result["x"] + result["width"] <= 360, result
    # The table fits its box: nothing scrolled out of sight to the right.
    assert page.evaluate(
        "() => { const w = document.querySelector('.table-wrap');"
        " return w.scrollWidth <= w.clientWidth + 1; }"
    )


def test_the_phone_leaderboard_shows_every_figure_that_ranks(new_page):
    """RULES.md C11 ranks by won, score, time, moves: a phone shows the four
    (issue 24: it left the moves out), and a long name wraps instead of pushing
    the table past the screen."""
    page = new_page(width=360, height=640)
    sign_up(page, f"a_rather_long_player_name_{secrets.token_hex(2)}")
    attempt = api(page, "POST", "/api/games/", {"daily": "SH1-C4"})["id"]
    api(page, "POST", f"/api/games/{attempt}/resign/", {})
    today = dt.datetime.now(dt.UTC).date().isoformat()
    page.goto(f"/leaderboard/{today}/SH1-C4/")
    page.wait_for_selector("#lb-rows tr.me")
    screenshot(page, "leaderboard-ranked-360x640")
    heads = page.evaluate(
        """() => [...document.querySelectorAll('#lb-table th')].map(th => {
            const b = th.getBoundingClientRect();
            return {text: th.textContent.trim(), left: b.left, right: b.right, width: b.width};
        })"""
    )
    shown = {h["text"]: h for h in heads if h["width"] > 0}
    for name in ("Result", "Score", "Time", "Moves"):
        assert name in shown, (name, heads)
        assert shown[name]["left"] >= 0 and shown[name]["right"] <= 360, shown[name]
    assert page.evaluate(
        "() => { const w = document.querySelector('.table-wrap');"
        " return w.scrollWidth <= w.clientWidth + 1; }"
    )


def test_the_easy_harp_lobby_icon_holds_its_four_suits(new_page):
    for width, height in ((1366, 768), (360, 640)):
        page = new_page(width=width, height=height)
        page.goto("/")
        page.wait_for_selector("#deals[aria-busy=false]")
        icons = page.evaluate(
            """() => [...document.querySelectorAll('.deal-suits')].map(icon => {
                const range = document.createRange();
                range.selectNodeContents(icon);
                const b = icon.getBoundingClientRect(), g = range.getBoundingClientRect();
                return {text: icon.textContent, icon: [b.left, b.top, b.right, b.bottom],
                        glyphs: [g.left, g.top, g.right, g.bottom]};
            })"""
        )
        assert any("♣" in icon["text"] for icon in icons), icons
        screenshot(page, f"lobby-icons-{width}x{height}")
        for icon in icons:
            left, top, right, bottom = icon["icon"]
            g_left, g_top, g_right, g_bottom = icon["glyphs"]
            # Every suit drawn inside the tile, none cut by its edge.
            assert left <= g_left and g_right <= right, icon
            assert top <= g_top and g_bottom <= bottom, icon


def test_the_keyboard_help_is_readable(new_page):
    page = new_page()
    sign_up(page)
    start_practice(page, WIN_CODE)
    page.click("#keys-help-box summary")
    help_text = page.locator("#keys-help")
    help_text.wait_for(state="visible")
    style = help_text.evaluate(
        """el => { const s = getComputedStyle(el), box = getComputedStyle(el.closest('details'));
            return {size: parseFloat(s.fontSize), line: parseFloat(s.lineHeight),
                    opacity: parseFloat(box.opacity)}; }"""
    )
    screenshot(page, "keyboard-help")
    assert style["size"] >= 14, style
    assert style["line"] >= 1.4 * style["size"], style  # room between the lines
    assert style["opacity"] == 1, style  # full contrast, not faded text


# --- issue 24, deliverable 7 ---------------------------------------------------------

# Colours as numbers, and the WCAG contrast of two of them.
COLOUR = """(css) => {
  const p = css.match(/[\\d.]+/g).map(Number);
  return {r: p[0], g: p[1], b: p[2]};
}"""


def rgb(page: Any, css: str) -> tuple[float, float, float]:
    c = page.evaluate(COLOUR, css)
    return c["r"], c["g"], c["b"]


def luminance(colour: tuple[float, float, float]) -> float:
    def f(v: float) -> float:
        v /= 255
        return v / 12.92 if v <= 0.03928 else ((v + 0.055) / 1.055) ** 2.4

    r, g, b = colour
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b)


def contrast(a: tuple[float, float, float], b: tuple[float, float, float]) -> float:
    hi, lo = sorted([luminance(a), luminance(b)], reverse=True)
    return (hi + 0.05) / (lo + 0.05)


def reddish(c: tuple[float, float, float]) -> bool:
    return c[0] >= 150 and c[0] - max(c[1], c[2]) >= 60


def set_theme(page: Any, theme: str) -> None:
    page.evaluate(f"() => {{ document.documentElement.dataset.theme = '{theme}'; }}")


def test_the_win_cards_suits_are_drawn_in_their_colours(new_page):
    """♥ and ♦ red, ♠ and ♣ dark (light on the dark theme's panel): the result
    card drew them by position, ♠ red and ♥ black."""
    page = new_page(390, 844)
    sign_up(page)
    start_practice(page, WIN_CODE)
    page.evaluate("() => document.getElementById('win').showModal()")
    for theme in ("light", "dark"):
        set_theme(page, theme)
        suits = page.evaluate(
            """() => [...document.querySelectorAll('#win .win-burst span')]
                .map(s => [s.textContent, getComputedStyle(s).color])"""
        )
        panel = rgb(
            page, page.evaluate("getComputedStyle(document.getElementById('win')).backgroundColor")
        )
        screenshot(page, f"win-suits-{theme}")
        colours = {symbol: rgb(page, css) for symbol, css in suits}
        assert set(colours) == {"♠", "♥", "♦", "♣"}, suits
        for red in ("♥", "♦"):
            assert reddish(colours[red]), (theme, red, colours[red])
        for black in ("♠", "♣"):
            assert not reddish(colours[black]), (theme, black, colours[black])
            if theme == "light":
                assert luminance(colours[black]) < 0.05, (black, colours[black])
        for symbol, colour in colours.items():  # each one shows on the card's panel
            assert contrast(colour, panel) >= 3, (theme, symbol, colour, panel)


@pytest.mark.parametrize("signed_in", [False, True])
def test_the_settings_dialogs_done_bar_covers_no_option_at_640x360(new_page, signed_in, server):
    page = new_page(640, 360)
    if signed_in:
        name = sign_up(page)
        # An address waiting for its confirmation: every control of the Account section shown.
        server.python(
            "from accounts.models import User\n"
            f"User.objects.filter(username={name!r}).update(email='small@example.org')"
        )
    page.goto("/")
    page.click("#settings-open")
    if signed_in:
        page.locator("#set-email-resend").wait_for(state="visible")
    page.locator("#settings-dialog").wait_for(state="visible")
    screenshot(page, f"settings-640x360-{'in' if signed_in else 'out'}")
    controls = page.evaluate(
        """() => [...document.querySelectorAll('#settings-dialog :is(input, select, button)')]
            .filter((control) => control.getClientRects().length) // not a hidden one
            .map((control, i) => {
              control.scrollIntoView({block: 'nearest'});
              const b = control.getBoundingClientRect();
              const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);
              const label = control.closest('label');
              return {i, name: control.id || `${control.name}=${control.value}`,
                      ok: hit === control || Boolean(label && label.contains(hit)),
                      hit: hit ? hit.outerHTML.slice(0, 80) : null};
            })"""
    )
    assert len(controls) >= 10, controls
    covered = [c for c in controls if not c["ok"]]
    assert not covered, covered
    # A control the keyboard focuses stops above the bar, whole.
    hidden = page.evaluate(
        """() => {
          const bar = document.querySelector('#settings-dialog form > .dialog-actions');
          const out = [];
          for (const control of document.querySelectorAll('#settings-dialog :is(input, select)')) {
            document.getElementById('settings-dialog').scrollTop = 0;
            control.focus();
            const b = control.getBoundingClientRect();
            const top = bar.getBoundingClientRect().top;
            if (b.bottom > top + 0.5) out.push(control.id || control.value);
          }
          return out;
        }"""
    )
    assert not hidden, hidden
    # Nothing scrolls into sight under the bar either: it reaches the window's bottom edge.
    gap = page.evaluate(
        """() => { const d = document.getElementById('settings-dialog');
            const bar = d.querySelector('form > .dialog-actions').getBoundingClientRect();
            return d.getBoundingClientRect().bottom - bar.bottom; }"""
    )
    assert gap <= 1, gap


# A pile's focus ring (its ::before) and a legal target's highlight (its .marker).
RINGS = """() => {
  const focused = document.activeElement.closest('.pile');
  const ring = getComputedStyle(focused, '::before');
  const target = document.querySelector('#board .pile.target .marker');
  const felt = getComputedStyle(document.documentElement).getPropertyValue('--felt');
  return {focused: focused.dataset.pile, ringStyle: ring.borderTopStyle,
          ringColour: ring.borderTopColor, ringWidth: parseFloat(ring.borderTopWidth),
          targetShadow: target ? getComputedStyle(target).boxShadow : null,
          outline: getComputedStyle(document.querySelector('#undo')).outlineColor};
}"""


def test_the_focus_ring_is_not_the_targets_highlight(new_page):
    """Both yellow before (the focus #ffb300, a legal target #ffd43b): the focus
    ring is white and dashed on the felt, the target a solid yellow glow; each
    shows on the felt in both themes."""
    page = new_page()
    sign_up(page)
    start_practice(page, WIN_CODE)
    page.keyboard.press("Tab")  # the skip link
    page.keyboard.press("Enter")  # the board's first column
    page.keyboard.press("Enter")  # picks its top card: the server's targets light up
    page.wait_for_selector("#board .pile.target")
    page.keyboard.press("ArrowRight")
    for theme in ("light", "dark"):
        set_theme(page, theme)
        rings = page.evaluate(RINGS)
        screenshot(page, f"focus-and-targets-{theme}")
        felt = rgb(
            page,
            page.evaluate(
                "getComputedStyle(document.querySelector('.game-layout')).backgroundImage"
                ".match(/rgb\\([^)]*\\)/g)[1]"
            ),
        )
        ring = rgb(page, rings["ringColour"])
        target = rgb(page, rings["targetShadow"])
        assert rings["ringStyle"] == "dashed" and rings["ringWidth"] >= 2, rings
        assert "rgb" in (rings["targetShadow"] or ""), rings
        # Apart: not the same colour (neither a near shade of it)…
        assert max(abs(x - y) for x, y in zip(ring, target, strict=True)) >= 60, (ring, target)
        # …and both clearly visible on the felt.
        assert contrast(ring, felt) >= 3, (theme, ring, felt)
        assert contrast(target, felt) >= 3, (theme, target, felt)


def test_the_skip_link_is_the_first_tab_stop_and_goes_to_the_board(new_page):
    page = new_page(390, 844)
    sign_up(page)
    start_practice(page, WIN_CODE)
    page.keyboard.press("Tab")
    link = page.evaluate(
        """() => { const a = document.activeElement, b = a.getBoundingClientRect();
            return {cls: a.className, text: a.textContent, href: a.getAttribute('href'),
                    top: b.top, bottom: b.bottom, left: b.left, right: b.right}; }"""
    )
    screenshot(page, "skip-link-390x844")
    assert link["cls"] == "skip-link" and link["text"] == "Skip to the board", link
    assert link["top"] >= 0 and link["bottom"] <= 844 and link["right"] <= 390, link  # shown
    page.keyboard.press("Enter")
    focused = page.evaluate(
        "() => { const p = document.activeElement.closest('#board .pile');"
        " return p ? p.dataset.pile : document.activeElement.outerHTML.slice(0, 80); }"
    )
    assert focused == "t1", focused
    # The arrows go on from there, as on any pile.
    page.keyboard.press("ArrowRight")
    assert page.evaluate("() => document.activeElement.dataset.pile") == "t2"

    # Every other page: its first Tab stop skips to the content.
    page.goto("/leaderboard/")
    page.keyboard.press("Tab")
    assert page.evaluate("() => document.activeElement.className") == "skip-link"
    page.keyboard.press("Enter")
    assert page.evaluate("() => document.activeElement.id") == "main"
