"""Small defects of the pages in real Chromium (issue 15, deliverable 8): layout
read from bounding boxes and computed styles."""

from __future__ import annotations

from .conftest import screenshot


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
