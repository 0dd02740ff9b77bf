"""The game's header line on a phone (issue 39): a guest's "not ranked yet" was cut
from the title ("Seahaven Towers (4 cells) · Daily · no…"), and on a phone on its
side the toolbar's buttons were 36 × 30 px, under a finger. At the five sizes, a
guest's daily: the kind shows whole, and on a phone every toolbar button shown is
at least 44 × 40 px."""

from __future__ import annotations

import pytest

from tests.support.browser import open_daily

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]

KIND_CUT = """() => {
  const title = document.getElementById('game-title').getBoundingClientRect();
  const kind = document.querySelector('#game-title .game-kind');
  const box = kind.getBoundingClientRect();
  return box.right > Math.min(title.right, window.innerWidth) + 0.5
    || kind.scrollWidth > kind.clientWidth + 1;
}"""
SMALL_BUTTONS = """() => [...document.querySelectorAll('.toolbar .button')]
  .filter((b) => b.offsetParent !== null)
  .map((b) => [b.id || b.textContent.trim(), b.getBoundingClientRect()])
  .filter(([, r]) => r.width < 44 || r.height < 40)
  .map(([name, r]) => `${name} ${Math.round(r.width)}x${Math.round(r.height)}`)"""


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_a_guests_daily_says_not_ranked_yet_whole_and_its_buttons_take_a_finger(
    new_page, width, height
):
    page = new_page(width=width, height=height)
    open_daily(page, "SH1-C4")  # signed out: played as a guest
    page.wait_for_function(
        "() => document.querySelector('#game-title .game-kind')"
        "?.textContent.includes('not ranked yet')"
    )
    assert not page.evaluate(KIND_CUT), page.inner_text("#game-title")
    if min(width, height) <= 500:  # a phone: fingers (a desktop's mouse takes 36 px)
        assert page.evaluate(SMALL_BUTTONS) == []
