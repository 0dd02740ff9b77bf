"""Streak freezes in a real browser (issue 27, deliverable 5): the lobby shows
the freezes held beside the streak, the archive's calendar marks the day one was
spent on (a snowflake, said in the day's label), and the player page lists it.

Twenty days won (two freezes earned, the 10th and 20th days), yesterday missed
(one spent: the streak goes on), today not yet played: stored through
``server.python`` as the ranked games would have left them."""

from __future__ import annotations

import datetime as dt
import re

from tests.support.a11y import serious_violations
from tests.support.browser import screenshot, sign_up
from tests.support.days import month_of, today, won_days_ago


def test_the_lobby_shows_the_freezes_and_the_calendar_the_frozen_day(new_page, server):
    page = new_page()
    name = sign_up(page)
    page.wait_for_selector("#streak:not([hidden])")
    assert page.get_attribute("#streak-freezes", "data-tokens") == "0"
    assert "No streak freeze" in page.inner_text("#streak-freezes")

    won_days_ago(server, name, list(range(21, 1, -1)), variant="EH1-N")
    page.reload()
    page.wait_for_selector("#streak:not([hidden])")
    streak = page.locator("#streak")
    assert streak.get_attribute("data-current") == "20"
    assert streak.get_attribute("data-tokens") == "1"
    freezes = page.locator("#streak-freezes")
    assert freezes.get_attribute("data-tokens") == "1"
    assert "1 streak freeze" in freezes.inner_text()
    assert "20-day streak" in streak.inner_text()
    # The icon is decoration; the words say it, and how freezes are earned.
    assert "every 10 days won" in freezes.get_attribute("title")
    assert "every 10 days won" in freezes.text_content()
    assert serious_violations(page, "#streak") == []
    screenshot(page, "lobby-freezes")

    # The calendar: yesterday, missed, kept by the freeze; no other day frozen.
    yesterday = today() - dt.timedelta(days=1)
    page.goto(f"/archive/?month={month_of(yesterday)}")
    page.wait_for_selector("#calendar[aria-busy=false]")
    cell = page.locator(f'.cal-day[data-date="{yesterday.isoformat()}"]')
    assert cell.locator(".cal-freeze").count() == 1
    assert "a streak freeze kept the streak going" in cell.get_attribute("aria-label")
    assert page.locator("td.cal-frozen").count() == 1
    assert page.locator(".cal-day .cal-freeze").count() == 1
    assert page.locator(".legend-marks .cal-freeze").count() == 1  # and the legend says it
    two_ago = (today() - dt.timedelta(days=2)).isoformat()
    if month_of(today() - dt.timedelta(days=2)) == month_of(yesterday):
        label = page.get_attribute(f'.cal-day[data-date="{two_ago}"]', "aria-label")
        assert "freeze" not in label and "Won" in label
    assert serious_violations(page) == []
    screenshot(page, "archive-frozen-day")

    # The player page: the freezes held and the day one kept.
    page.goto(f"/players/{name}/")
    page.wait_for_selector("#player-frozen:not([hidden])")
    totals = page.inner_text("#player-totals")
    assert re.search(r"1\s*Streak freezes", totals), totals
    frozen = page.inner_text("#player-frozen")
    assert frozen.startswith("Days kept by a streak freeze:")
    assert str(yesterday.year) in frozen and str(yesterday.day) in frozen
    screenshot(page, "player-freezes")
