"""Small defects of the pages in real Chromium (issue 15, deliverable 8): layout
read from bounding boxes and computed styles."""

from __future__ import annotations

from .conftest import screenshot
from .test_pages import WIN_CODE, sign_up, start_practice


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
