"""A lost game keeps its toolbar on the screen (issue 39, deliverable 2): the
dead-end notice's "Undo to the last position that could still be won" button
wraps instead of widening the page — at 360×640 it was one 410 px button, the
page became 424 px wide and Undo, New game and Resign fell off the screen, the
moment the player needs them. Real Chromium at the five sizes."""

from __future__ import annotations

import pytest

from tests.support.browser import post_actions, sign_up, start_practice, wait_still
from tests.support.search import LOSE_CODE, losing_line

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]

ON_SCREEN = """(ids) => ids.map((id) => {
    const el = document.getElementById(id);
    const box = el.getBoundingClientRect();
    return {id, visible: !el.hidden && box.width > 0,
            inside: box.left >= 0 && box.right <= innerWidth + 0.5
                    && box.top >= 0 && box.bottom <= innerHeight + 0.5};
})"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_lost_game_keeps_the_page_as_wide_as_the_screen(new_page, width, height):
    actions, _ = losing_line()
    page = new_page(width=width, height=height)
    sign_up(page)
    attempt = start_practice(page, LOSE_CODE)
    post_actions(page, attempt, 0, actions)
    page.wait_for_selector("#notice[data-kind=warning] #last-winnable", state="visible")
    wait_still(page)
    wide = page.evaluate("() => document.documentElement.scrollWidth")
    assert wide <= width, f"the page is {wide} px wide on a {width} px screen"
    button = page.locator("#last-winnable").bounding_box()
    assert button and button["x"] >= 0 and button["x"] + button["width"] <= width, button
    for found in page.evaluate(ON_SCREEN, ["undo", "new-game", "resign"]):
        assert found["visible"] and found["inside"], found
