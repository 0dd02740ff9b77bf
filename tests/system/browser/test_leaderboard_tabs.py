"""The leaderboard's variant tabs fit the screen (issue 39): at 640 px and below
the strip was wider than the screen and scrolled, its first tab cut ("y Harp").
Real Chromium at the five sizes: every tab whole and on the screen."""

from __future__ import annotations

import datetime as dt

import pytest

from games.engine import ALL_VARIANTS

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]

TABS = """() => {
    const strip = document.getElementById("lb-tabs");
    return {strip: [strip.scrollWidth, strip.clientWidth],
            tabs: [...strip.querySelectorAll(".tab")].map((t) => {
                const box = t.getBoundingClientRect();
                return {text: t.textContent.trim(), left: box.left, right: box.right,
                        whole: t.scrollWidth <= t.clientWidth + 1};
            })};
}"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_every_variant_tab_is_whole_on_the_screen(new_page, width, height):
    page = new_page(width=width, height=height)
    today = dt.datetime.now(dt.UTC).date().isoformat()
    page.goto(f"/leaderboard/{today}/SH1-C1/")  # the last tab: a strip scrolled to it cut the first
    page.wait_for_selector("#lb-tabs .tab")
    found = page.evaluate(TABS)
    scroll, client = found["strip"]
    assert scroll <= client + 1, f"the tab strip is {scroll} px wide in {client} px"
    assert len(found["tabs"]) == len(ALL_VARIANTS)
    for tab in found["tabs"]:
        assert tab["left"] >= 0 and tab["right"] <= width + 0.5 and tab["whole"], tab
