"""Streak and archive in a real browser (issue 15, deliverable 3): the lobby
shows the player's streak (an honest zero first) and a Result link on a finished
daily; the archive's calendar marks the day the player won; a past day opened
from the archive plays its revealed deal as practice; a running day offers no
such button, and no page here names today's code.

Today's Seahaven 4-cell deal is proven by the conftest: the test wins it by
posting the solver's line (read from the server's database, ``server.daily``)
from the page's own session. A win on yesterday's deal — no longer playable
ranked — is stored through ``server.python``, as the ranked game would have left it.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from games.engine import ALL_VARIANTS, Move, new_game
from tests.support.a11y import serious_violations
from tests.support.browser import (
    api,
    assert_board_is,
    open_daily,
    play,
    post_actions,
    screenshot,
    sign_up,
)
from tests.support.days import month_of, today, won_days_ago

VARIANTS = list(ALL_VARIANTS)


def streak_shown(page: Any) -> tuple[int, int, str]:
    page.wait_for_selector("#streak:not([hidden])")
    streak = page.locator("#streak")
    return (
        int(streak.get_attribute("data-current")),
        int(streak.get_attribute("data-longest")),
        streak.inner_text(),
    )


def test_the_lobby_shows_the_streak_and_the_archive_the_won_days(new_page, server):
    page = new_page()
    name = sign_up(page)
    current, longest, text = streak_shown(page)
    assert (current, longest) == (0, 0)
    assert "No streak yet" in text
    assert page.locator("[data-result-link]").count() == 0  # nothing finished yet

    # Win today's Seahaven (4 cells) by its solver line; yesterday's win stored.
    daily = server.daily("SH1-C4")
    attempt = open_daily(page, "SH1-C4")
    post_actions(page, attempt, 0, daily["proof"])
    assert api(page, "GET", f"/api/games/{attempt}/")["status"] == "won"
    won_days_ago(server, name, [1])

    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")
    current, longest, text = streak_shown(page)
    assert (current, longest) == (2, 2)
    assert "2-day streak" in text and "best 2" in text
    assert "keep it going" not in text  # today is won already
    entry = page.locator('.deal[data-variant="SH1-C4"]')
    assert entry.get_attribute("data-status") == "won"
    page.wait_for_selector('.deal[data-variant="SH1-C4"] .rank[data-rank]')
    assert re.search(r"rank \d+ of \d+", entry.locator(".rank").inner_text())
    assert entry.locator("[data-result-link]").get_attribute("href") == f"/play/{attempt}/#result"
    for variant in ("EH1-N", "SH1-C2", "SH1-C1"):  # not played: Play, no Result
        other = page.locator(f'.deal[data-variant="{variant}"]')
        assert other.get_attribute("data-status") == "not_started"
        assert other.locator("[data-result-link]").count() == 0
    assert daily["code"] not in page.content()
    assert serious_violations(page, "#streak") == []  # (the deals' own are another item's)
    screenshot(page, "lobby-streak")

    # The archive, from the site's navigation: today's cell marks the win.
    page.click(".site-nav a[href='/archive/']")
    page.wait_for_url(re.compile(r"/archive/$"))
    page.wait_for_selector("#calendar[aria-busy=false]")
    assert page.locator("#archive-error").inner_text() == ""
    cell = page.locator(f'.cal-day[data-date="{today().isoformat()}"]')
    assert cell.get_attribute("href") == f"/daily/{today().isoformat()}/"
    assert cell.get_attribute("aria-current") == "date"
    marks = {
        m.get_attribute("data-variant"): m.get_attribute("data-result")
        for m in cell.locator(".mark").all()
    }
    assert marks == {v: "won" if v == "SH1-C4" else "none" for v in ALL_VARIANTS}
    label = cell.get_attribute("aria-label")
    assert "Seahaven Towers · Easy (4 cells): Won" in label and "Easy Harp: Not played" in label
    assert daily["code"] not in page.content()
    assert serious_violations(page) == []
    screenshot(page, "archive-month")

    # Yesterday, on its month's page (the month before, on the 1st of a month).
    yesterday = today() - dt.timedelta(days=1)
    if yesterday.month != today().month:
        page.click("#archive-prev")
        page.wait_for_url(re.compile(rf"\?month={month_of(yesterday)}$"))
        page.wait_for_selector("#calendar[aria-busy=false]")
    mark = page.locator(
        f'.cal-day[data-date="{yesterday.isoformat()}"] .mark[data-variant="SH1-C4"]'
    )
    assert mark.get_attribute("data-result") == "won"
    # Every day keeps one place per variant, in the legend's order, played or not.
    places = page.locator(f'.cal-day[data-date="{yesterday.isoformat()}"] .mark')
    assert [m.get_attribute("data-variant") for m in places.all()] == VARIANTS
    # Phones: the month fits the width.
    phone = new_page(width=360, height=640)
    phone.goto(f"/archive/?month={month_of(today())}")
    phone.wait_for_selector("#calendar[aria-busy=false]")
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 360, f"the archive is {width} px wide on a 360-px phone"
    # Every link of the site's navigation, Archive added, in view without scrolling it.
    for size in ((360, 640), (390, 844), (640, 360), (844, 390)):
        phone.set_viewport_size({"width": size[0], "height": size[1]})
        nav = phone.evaluate(
            "() => { const n = document.querySelector('.site-nav');"
            " return [n.scrollWidth, n.clientWidth]; }"
        )
        assert nav[0] <= nav[1], f"the site's links need {nav[0]} px of {nav[1]} at {size}"
    screenshot(phone, "archive-phone")


def test_a_past_day_from_the_archive_plays_as_practice(new_page, server):
    yesterday = today() - dt.timedelta(days=1)
    stored = server.daily("SH1-C4", yesterday.isoformat())
    page = new_page()
    sign_up(page)
    page.goto(f"/archive/?month={month_of(yesterday)}")
    page.wait_for_selector("#calendar[aria-busy=false]")
    page.click(f'.cal-day[data-date="{yesterday.isoformat()}"]')
    page.wait_for_url(re.compile(rf"/daily/{yesterday.isoformat()}/$"))
    page.wait_for_selector("#day-deals[aria-busy=false]")
    entry = page.locator('.day-deal[data-variant="SH1-C4"]')
    assert entry.locator(".day-code").inner_text().strip() == stored["code"]
    assert entry.locator(f'a[href="/leaderboard/{yesterday.isoformat()}/SH1-C4/"]').count() == 1
    assert page.get_attribute("#day-archive", "href") == f"/archive/?month={month_of(yesterday)}"
    screenshot(page, "daily-revealed-play")

    entry.locator("[data-play-code]").click()
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    attempt = int(page.url.rstrip("/").split("/")[-1])
    game = new_game(stored["code"])
    assert_board_is(page, game)
    assert page.inner_text("#code").strip() == stored["code"]  # the day is over: its name shows
    body = api(page, "GET", f"/api/games/{attempt}/")
    assert body["ranked"] is False and body["code"] == stored["code"]
    assert body["daily"] is None  # plain practice: no ranked result, no daily's rules
    # Playable: the first move of the solver's line, dragged, is accepted.
    first = stored["proof"][0]
    assert first["type"] == "move", first
    play(page, game, Move(first["from"], first["to"], first.get("count", 1)))
    assert_board_is(page, game)
    screenshot(page, "past-daily-practice")

    # Today's page: sealed, nothing to play, no code.
    page.goto(f"/daily/{today().isoformat()}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    assert page.locator("[data-play-code]").count() == 0
    assert server.daily("SH1-C4")["code"] not in page.content()


def test_signed_out_the_calendar_has_no_marks_and_days_still_open(new_page, server):
    yesterday = today() - dt.timedelta(days=1)
    page = new_page()
    page.goto(f"/archive/?month={month_of(yesterday)}")
    page.wait_for_selector("#calendar[aria-busy=false]")
    assert page.locator("#archive-signin").is_visible()
    assert page.locator(".mark").count() == 0
    assert serious_violations(page) == []
    screenshot(page, "archive-signed-out")
    cell = page.locator(f'.cal-day[data-date="{yesterday.isoformat()}"]')
    assert cell.get_attribute("href") == f"/daily/{yesterday.isoformat()}/"
    cell.click()
    page.wait_for_selector("#day-deals[aria-busy=false]")
    # Signed out the deal is played as a guest (issue 24): the same button.
    play = page.locator('.day-deal[data-variant="SH1-C4"] [data-play-code]')
    assert play.inner_text().strip() == "Play this deal"
    assert page.goto("/archive/?month=2026-13").status == 404
