"""Themes and appearance settings in real Chromium (issue 15, deliverable 7):
light and dark (chosen, or following ``prefers-color-scheme``), the four-colour
deck, reduced motion, stored on the account or, signed out, in this browser;
text contrast (WCAG AA, 4.5:1) measured in both themes; the settings dialog on
a phone."""

from __future__ import annotations

import re
from typing import Any
from urllib.parse import urlparse

from tests.support.browser import PASSWORD, WIN_CODE, api, screenshot, sign_up, start_practice

AA = 4.5

SAVED = "() => document.getElementById('settings-status').textContent === 'Saved.'"
PAGE_BACKGROUND = "() => getComputedStyle(document.documentElement).backgroundColor"
LIGHT_BG = "rgb(244, 245, 247)"  # base.css --bg
DARK_BG = "rgb(15, 20, 27)"  # theme.css --bg, dark

# The colour variables of both themes (base.css and theme.css).
VARIABLES = [
    "--bg", "--panel", "--ink", "--muted", "--line", "--accent", "--accent-ink", "--danger",
    "--success", "--header", "--felt", "--felt-dark", "--felt-light", "--field-bg",
    "--field-line", "--subtle", "--accent-soft", "--neutral-bg", "--neutral-ink", "--warn-bg",
    "--warn-ink", "--success-bg", "--danger-bg", "--highlight",
]  # fmt: skip

# The contrast of an element's text with what is behind it: its own background
# colour, else its ancestors', semi-transparent layers blended (WCAG 2 formula).
CONTRAST = """(selector) => {
  const rgba = (text) => {
    const p = text.match(/[\\d.]+/g).map(Number);
    return { r: p[0], g: p[1], b: p[2], a: p.length > 3 ? p[3] : 1 };
  };
  const over = (top, bottom) => ({
    r: top.r * top.a + bottom.r * (1 - top.a),
    g: top.g * top.a + bottom.g * (1 - top.a),
    b: top.b * top.a + bottom.b * (1 - top.a),
    a: 1,
  });
  const luminance = ({ r, g, b }) => {
    const f = (v) => ((v /= 255) <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4);
    return 0.2126 * f(r) + 0.7152 * f(g) + 0.0722 * f(b);
  };
  const visible = [...document.querySelectorAll(selector)].filter(
    (el) => el.getClientRects().length && el.textContent.trim());
  return visible.map((el) => {
    const layers = [];
    for (let e = el; e; e = e.parentElement) {
      const c = rgba(getComputedStyle(e).backgroundColor);
      if (c.a > 0) layers.push(c);
      if (c.a >= 1) break;
    }
    let back = { r: 255, g: 255, b: 255, a: 1 };
    for (const layer of layers.reverse()) back = over(layer, back);
    const ink = over(rgba(getComputedStyle(el).color), back);
    const [hi, lo] = [luminance(ink), luminance(back)].sort((x, y) => y - x);
    return { text: el.textContent.trim().slice(0, 40), ratio: (hi + 0.05) / (lo + 0.05),
             ink: getComputedStyle(el).color, back: [back.r, back.g, back.b].map(Math.round) };
  });
}"""


def html_attribute(page: Any, name: str) -> str | None:
    return page.evaluate(f"() => document.documentElement.getAttribute('data-{name}')")


def open_settings(page: Any) -> None:
    page.click("#settings-open")
    page.locator("#settings-dialog").wait_for(state="visible")


def choose(page: Any, name: str, value: str) -> None:
    """Pick a setting in the open dialog; it is saved (status "Saved.")."""
    page.evaluate("() => { document.getElementById('settings-status').textContent = ''; }")
    page.check(f'#settings-dialog input[name="{name}"][value="{value}"]')
    page.wait_for_function(SAVED)


def sign_out(page: Any) -> None:
    with page.expect_navigation():
        page.click("#signout")
    page.wait_for_selector("#signin-link")


def account_settings(page: Any) -> dict[str, Any]:
    return api(page, "GET", "/api/auth/settings/")


def assert_contrast(page: Any, selectors: list[str], where: str) -> None:
    for selector in selectors:
        measured = page.evaluate(CONTRAST, selector)
        assert measured, f"{where}: nothing visible matches {selector}"
        for one in measured:
            assert one["ratio"] >= AA, (where, selector, one)


def test_signed_out_dark_applies_at_once_and_stays_after_a_reload(new_page):
    page = new_page()
    page.goto("/")
    assert html_attribute(page, "theme") is None
    assert page.evaluate(PAGE_BACKGROUND) == LIGHT_BG
    open_settings(page)
    # The dialog for everyone: the language is in it too (signed out: the cookie).
    assert page.locator("#set-language").is_visible()
    choose(page, "theme", "dark")
    assert html_attribute(page, "theme") == "dark"
    assert page.evaluate(PAGE_BACKGROUND) == DARK_BG  # at once, no reload
    screenshot(page, "theme-dark-settings-signed-out")
    page.click("#settings-close")
    stored = page.evaluate("() => JSON.parse(localStorage.getItem('patience-settings'))")
    assert stored["theme"] == "dark"
    # After a reload it is applied before any module runs (header.js included):
    # by appearance.js, a classic script in <head>, so the page never shows light.
    page.add_init_script(
        "document.addEventListener('readystatechange', () => {"
        " if (document.readyState === 'interactive')"
        "  window.themeBeforeModules = document.documentElement.getAttribute('data-theme'); });"
    )
    page.reload()
    page.wait_for_load_state("load")
    assert page.evaluate("() => window.themeBeforeModules") == "dark"
    assert page.evaluate(PAGE_BACKGROUND) == DARK_BG
    page.goto("/leaderboard/")
    assert page.evaluate(PAGE_BACKGROUND) == DARK_BG  # every page
    open_settings(page)
    assert page.is_checked('#settings-dialog input[name="theme"][value="dark"]')
    choose(page, "theme", "")
    assert html_attribute(page, "theme") is None
    assert page.evaluate(PAGE_BACKGROUND) == LIGHT_BG


def test_signed_in_the_theme_is_the_accounts_and_drawn_by_the_server(new_page):
    page = new_page()
    sign_up(page)
    light = page.evaluate(PAGE_BACKGROUND)
    assert light == LIGHT_BG
    open_settings(page)
    choose(page, "theme", "dark")
    assert page.evaluate(PAGE_BACKGROUND) == DARK_BG
    assert account_settings(page)["theme"] == "dark"
    assert page.evaluate("() => localStorage.getItem('patience-settings')") is None
    # The page comes with the attribute: no script needed, nothing flashes.
    shell = page.request.get("/").text()
    assert re.search(r'<html lang="[\w-]+" data-theme="dark">', shell), shell[:400]
    page.reload()
    assert html_attribute(page, "theme") == "dark"
    assert page.evaluate(PAGE_BACKGROUND) == DARK_BG


def test_signing_in_the_accounts_settings_win_and_a_new_account_takes_the_browsers(new_page):
    page = new_page()
    name = sign_up(page)  # theme "": follow the system
    sign_out(page)
    open_settings(page)
    choose(page, "theme", "dark")
    choose(page, "deck", "four")
    page.click("#settings-close")
    page.goto("/login/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(lambda url: urlparse(url).path == "/")
    assert page.locator("#signout").count() == 1
    assert html_attribute(page, "theme") is None  # the account's, not this browser's
    assert html_attribute(page, "deck") is None
    assert account_settings(page)["theme"] == ""
    sign_out(page)
    assert html_attribute(page, "theme") == "dark"  # this browser's again
    # A new account starts from this browser's settings.
    sign_up(page)
    assert html_attribute(page, "theme") == "dark"
    assert html_attribute(page, "deck") == "four"
    assert account_settings(page)["theme"] == "dark"


def plain_page_colours(context, read: str) -> list[str]:
    """The palette of a fresh page under the system's light preference."""
    page = context.new_page()
    page.goto("/")
    colours = page.evaluate(read)
    page.close()
    return colours


def test_the_systems_dark_preference_applies_when_the_theme_follows_it(chromium, site):
    system_dark = chromium.new_context(base_url=site, color_scheme="dark")
    plain = chromium.new_context(base_url=site, color_scheme="light")
    try:
        page = system_dark.new_page()
        page.goto("/")
        assert html_attribute(page, "theme") is None
        assert page.evaluate(PAGE_BACKGROUND) == DARK_BG
        screenshot(page, "theme-system-dark-lobby")
        # Each colour as the page resolves it (theme.css writes light-dark(light,
        # dark); the variable itself holds that text, whatever the theme).
        read = (
            f"() => {VARIABLES!r}.map(v => {{"
            " const probe = document.body.appendChild(document.createElement('i'));"
            " probe.style.color = `var(${v})`;"
            " const colour = getComputedStyle(probe).color; probe.remove(); return colour; })"
        )
        followed = page.evaluate(read)
        assert followed != plain_page_colours(plain, read)  # the system's dark is not light
        # The same palette as the dark theme chosen in a light system.
        chosen_page = plain.new_page()
        chosen_page.goto("/")
        assert chosen_page.evaluate(PAGE_BACKGROUND) == LIGHT_BG
        open_settings(chosen_page)
        choose(chosen_page, "theme", "dark")
        assert dict(zip(VARIABLES, chosen_page.evaluate(read), strict=True)) == dict(
            zip(VARIABLES, followed, strict=True)
        )
        # A chosen light theme wins over the system's dark.
        open_settings(page)
        choose(page, "theme", "light")
        assert page.evaluate(PAGE_BACKGROUND) == LIGHT_BG
        page.reload()
        assert page.evaluate(PAGE_BACKGROUND) == LIGHT_BG
    finally:
        system_dark.close()
        plain.close()


def suit_colours(page: Any) -> dict[str, list[int]]:
    """The colour of a face-up card of each suit on the board, as [r, g, b]."""
    return page.evaluate(
        """() => Object.fromEntries(['S', 'H', 'D', 'C'].map((suit) => {
            const card = document.querySelector(`#board .card[data-card$="${suit}"] .c-rank`);
            return [suit, getComputedStyle(card).color.match(/\\d+/g).slice(0, 3).map(Number)];
        }))"""
    )


def test_four_colours_reduced_motion_and_contrast_in_both_themes(new_page, server):
    page = new_page()
    sign_up(page)
    themes = {"light": LIGHT_BG, "dark": DARK_BG}
    for theme, background in themes.items():
        open_settings(page)
        choose(page, "theme", theme)
        assert page.evaluate(PAGE_BACKGROUND) == background
        # Ink and muted text on the panels, the header, links and buttons.
        assert_contrast(
            page,
            ["#settings-title", "#settings-dialog legend", "#settings-dialog .toggle small",
             "#settings-dialog .toggle strong", "#settings-dialog .chip", "#settings-close"],
            f"settings, {theme}",
        )  # fmt: skip
        page.click("#settings-close")
        page.wait_for_selector("#deals[aria-busy=false]")
        if not page.locator("#seal-note").is_visible():
            page.click("#fair-play summary")
        assert_contrast(
            page,
            ["h1", ".day-clock", ".seal-note", "#yesterday-link", ".deal h2", ".deal-head small",
             ".deal-facts", ".badge", ".seal-label", ".deal .button.primary", ".deal .button.ghost",
             "#new-game", ".site-nav a", "#account-name", "#signout"],
            f"lobby, {theme}",
        )  # fmt: skip
        screenshot(page, f"theme-{theme}-lobby")
        page.goto("/leaderboard/")
        page.wait_for_selector("#lb-table")
        assert_contrast(page, [".results th", ".tab", "h1"], f"leaderboard, {theme}")
        screenshot(page, f"theme-{theme}-leaderboard")
        page.goto("/")
        page.wait_for_selector("#deals[aria-busy=false]")

    start_practice(page, WIN_CODE)  # Seahaven: every card face up, all four suits
    two = suit_colours(page)
    assert two["D"] == two["H"], two  # both red
    open_settings(page)
    choose(page, "deck", "four")
    four = suit_colours(page)  # at once, no reload
    assert account_settings(page)["deck"] == "four"
    r, g, b = four["D"]
    assert b > r + 80 and b > g + 40, four  # diamonds blue
    r, g, b = four["C"]
    assert g > r + 50 and g > b + 30, four  # clubs green
    assert four["H"] == two["H"] and four["S"] == two["S"], (two, four)
    page.click("#settings-close")
    page.reload()
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    assert suit_colours(page) == four  # drawn so by the server's attribute
    screenshot(page, "theme-dark-four-colour-board")
    felt = {}
    for theme in themes:
        api(page, "PATCH", "/api/auth/settings/", {"theme": theme})
        page.reload()
        page.wait_for_selector("#board .pile[data-pile=t1] .card")
        assert html_attribute(page, "theme") == theme
        felt[theme] = page.evaluate(
            "() => getComputedStyle(document.querySelector('.game-layout')).backgroundImage"
        )
        # Every rank and suit on a card face, four colours, at AA on the white face.
        assert_contrast(page, ["#board .card.face .c-rank", "#board .card.face .c-suit"], theme)

    assert felt["light"] != felt["dark"], felt  # the felt is darker too

    # Reduced motion: the refusal shake (cards.css) stops, chosen or from the system.
    shake = """() => { const el = document.createElement('div'); el.className = 'board refused';
        document.body.append(el); const name = getComputedStyle(el).animationName;
        el.remove(); return name; }"""
    assert page.evaluate(shake) == "shake"
    open_settings(page)
    choose(page, "motion", "reduced")
    assert html_attribute(page, "motion") == "reduced"
    assert page.evaluate(shake) == "none"
    assert account_settings(page)["motion"] == "reduced"
    choose(page, "motion", "")
    assert page.evaluate(shake) == "shake"
    page.emulate_media(reduced_motion="reduce")
    assert page.evaluate(shake) == "none"
    # Sounds: off unless asked for, a switch stored with the account.
    assert not page.is_checked("#set-sounds")
    page.check("#set-sounds")
    page.wait_for_function(SAVED)
    assert account_settings(page)["sounds"] is True


def test_the_settings_dialog_fits_a_phone(new_page):
    for signed_in in (False, True):
        page = new_page(width=360, height=640)
        if signed_in:
            sign_up(page)
        else:
            page.goto("/")
        open_settings(page)
        screenshot(page, f"settings-360x640-{'account' if signed_in else 'browser'}")
        dialog = page.locator("#settings-dialog").bounding_box()
        assert dialog is not None
        assert dialog["x"] >= 0 and dialog["x"] + dialog["width"] <= 360, dialog
        assert dialog["y"] >= 0 and dialog["y"] + dialog["height"] <= 640, dialog
        # Nothing runs past its right edge; what is below scrolls inside it.
        assert page.evaluate(
            "() => { const d = document.getElementById('settings-dialog');"
            " return d.scrollWidth <= d.clientWidth; }"
        )
        page.locator("#settings-close").scroll_into_view_if_needed()
        done = page.locator("#settings-close").bounding_box()
        assert done is not None and done["y"] + done["height"] <= 640, done
        assert page.evaluate("() => window.scrollY") == 0  # the page did not scroll
        page.click("#settings-close")
        assert not page.locator("#settings-dialog").is_visible()
