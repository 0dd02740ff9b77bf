"""Where a practice of a past daily would have ranked, on the result card in a
real browser (issue 27, deliverable 4).

The Seahaven 2-cell deal of five days ago (a day no other browser test plays,
revealed) has two counted results, stored through ``server.python``: a win and
a slow resignation. A player opens that day's page, plays the deal ("Play this
deal": a practice) and resigns at once: the card says it would have ranked
second of three, better than half of that day's results, and links to that
day's board, which stays as it was. A practice of a numbered deal has no such
line."""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

from tests.support.browser import WIN_CODE, api, screenshot, sign_up, start_practice
from tests.support.days import today


def day_results(server: Any, day: dt.date) -> None:
    """A win and a resignation of ten hours on ``day``'s SH1-C2, by two new players."""
    server.python(
        "import datetime as dt, secrets\n"
        "from django.utils import timezone\n"
        "from accounts.models import User\n"
        "from games.dailies import daily_deal_get\n"
        "from games.models import Attempt\n"
        "from games.services import _create_attempt\n"
        f"daily = daily_deal_get(date=dt.date.fromisoformat({day.isoformat()!r}),"
        " variant='SH1-C2')\n"
        "for won, ms in ((True, 90_000), (False, 36_000_000)):\n"
        "    user = User.objects.create_user(username='d' + secrets.token_hex(4))\n"
        "    a = _create_attempt(player=user, deal=daily.deal, daily=daily, ranked=True)\n"
        "    Attempt.objects.filter(pk=a.pk).update(status='won' if won else 'resigned',"
        " won=won, verified=True, score=500 if won else 0, moves=90 if won else 0,"
        " elapsed_ms=ms, finished_at=timezone.now() - dt.timedelta(days=1))"
    )


def open_card(page: Any, attempt: int) -> None:
    """Resign the game, then open its result card from the toolbar."""
    api(page, "POST", f"/api/games/{attempt}/resign/")
    page.goto(f"/play/{attempt}/")
    page.click("#show-result")
    page.wait_for_selector("#win[open]")


def test_the_card_of_a_past_dailys_practice_says_where_it_would_have_ranked(new_page, server):
    day = today() - dt.timedelta(days=5)
    day_results(server, day)
    page = new_page()
    sign_up(page)
    page.goto(f"/daily/{day.isoformat()}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    page.locator('.day-deal[data-variant="SH1-C2"] [data-play-code]').click()
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    attempt = int(page.url.rstrip("/").split("/")[-1])
    open_card(page, attempt)

    row = page.locator("#win-would-rank-row")
    row.wait_for(state="visible")
    text = page.inner_text("#win-would-rank-text")
    assert text == (
        f"Would have ranked #2 of 3 on {day:%B} {day.day}, {day.year},"
        " better than 50% of that day's results."
    )
    board = f"/leaderboard/{day.isoformat()}/SH1-C2/"
    assert page.get_attribute("#win-would-rank-board", "href") == board
    # A practice has no rank of its own on the board, nor a streak.
    assert page.locator("#win-rank-row").is_hidden()
    assert page.locator("#win-streak-row").is_hidden()
    assert api(page, "GET", f"/api/leaderboard/would-rank/{attempt}/")["rank"] == 2
    screenshot(page, "would-rank-card")

    # The day's board is as it was: the practice is not on it.
    results = api(page, "GET", f"/api{board}")["results"]
    assert [(r["rank"], r["won"]) for r in results] == [(1, True), (2, False)]


def test_a_numbered_deals_practice_has_no_such_line(new_page, server):
    page = new_page()
    sign_up(page)
    attempt = start_practice(page, WIN_CODE)
    open_card(page, attempt)
    page.wait_for_timeout(500)  # the refusal came back: the row stays hidden
    assert page.locator("#win-would-rank-row").is_hidden()
