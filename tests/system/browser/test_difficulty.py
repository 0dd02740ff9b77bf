"""How hard it was (issue 27) in a real browser: the day page shows a running
day's predicted level (and "unknown" for a deal made on demand), nothing
measured; the result card of a won daily shows the day's outcomes with the
player's own bucket marked; a day that is over shows predicted, measured and
its histogram; the archive's table lists predicted against measured for the
days that are over, never today.

Today's and yesterday's Seahaven 4-cell deals are proven by the conftest (so
they have a prediction); yesterday's results are stored through
``server.python`` and measured there, as the after-the-day job does.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from tests.support.browser import open_daily, post_actions, screenshot, sign_up
from tests.support.days import today


def yesterday_played_and_measured(server: Any) -> dict[str, Any]:
    """Seven results on yesterday's SH1-C4 (five wins, a late resignation, an early
    abandon), measured as the job does; the measure as stored. Its results only:
    the session's server is shared by the test files a worker runs in turn, and
    one run before this one may have left a result on that day (test_archive's
    streak did, and a clean-clone CI run measured 7 players)."""
    return server.python(
        "import datetime as dt, secrets\n"
        "from django.utils import timezone\n"
        "from accounts.models import User\n"
        "from games.dailies import daily_deal_get, utc_today\n"
        "from games.difficulty import daily_deal_measure\n"
        "from games.models import Attempt\n"
        "from games.services import _create_attempt\n"
        "daily = daily_deal_get(date=utc_today() - dt.timedelta(days=1), variant='SH1-C4')\n"
        "Attempt.objects.filter(daily=daily).delete()\n"
        "rows = [(True, 90, 150_000), (True, 95, 200_000), (True, 100, 400_000),\n"
        "        (True, 130, 700_000), (True, 300, 3_000_000), (False, 40, 90_000),\n"
        "        (False, 1, 5_000)]\n"
        "for won, moves, ms in rows:\n"
        "    user = User.objects.create_user(username='m' + secrets.token_hex(4))\n"
        "    a = _create_attempt(player=user, deal=daily.deal, daily=daily, ranked=True)\n"
        "    Attempt.objects.filter(pk=a.pk).update(\n"
        "        status='won' if won else ('resigned' if moves > 3 else 'abandoned'),\n"
        "        won=won, verified=True, moves=moves, elapsed_ms=ms,\n"
        "        finished_at=timezone.now())\n"
        "result = daily_deal_measure(daily_id=daily.pk).measured"
    )


def test_a_running_day_shows_its_predicted_level_and_the_card_its_outcomes(new_page, server):
    page = new_page()
    sign_up(page)
    day = today().isoformat()
    page.goto(f"/daily/{day}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    towers = page.locator('.day-deal[data-variant="SH1-C4"] .difficulty')
    level = towers.locator(".difficulty-predicted").get_attribute("data-level")
    assert level in {"1", "2", "3", "4", "5"}
    assert towers.locator(".level-pips .pip.on").count() == int(level)
    assert "first moves still win" in towers.inner_text()
    assert towers.locator(".difficulty-measured").count() == 0  # the day runs
    unproven = page.locator('.day-deal[data-variant="SH1-C2"] .difficulty-predicted')
    assert unproven.get_attribute("data-level") == ""
    assert "unknown" in unproven.inner_text()
    daily = server.daily("SH1-C4")
    assert daily["code"] not in page.content()
    screenshot(page, "difficulty-running-day")

    # Win today's deal by its solver line: the card opens with the day's outcomes.
    attempt = open_daily(page, "SH1-C4")
    post_actions(page, attempt, 0, daily["proof"])
    page.wait_for_selector("#win", state="visible", timeout=20_000)
    outcomes = page.locator("#win .win-outcomes")
    summary = outcomes.locator("summary")
    summary.wait_for()
    page.wait_for_function(  # filled once the day's answer came
        "() => / won$/.test(document.querySelector('#win .win-outcomes summary').textContent)"
    )
    assert "The day's results" in summary.inner_text()
    if outcomes.get_attribute("open") is None:  # closed below 900 px of height: a tap opens it
        summary.click()
    outcomes.locator(".histogram").first.wait_for()
    mine = outcomes.locator(".bucket.mine")
    assert mine.count() == 2  # by moves and by time
    moves = outcomes.locator('.histogram[data-kind="moves"] .bucket.mine')
    # The solver's line has par moves: the first bucket ("≤ par") is the player's.
    assert moves.locator(".bucket-label").inner_text() == f"≤ {daily['par']}"
    assert "you" in moves.inner_text()
    width = moves.locator(".bucket-bar > span").evaluate("e => e.getBoundingClientRect().width")
    assert width > 0  # drawn through the CSSOM (the CSP allows no inline style)
    assert daily["code"] not in page.content()
    screenshot(page, "difficulty-result-card")


def test_a_day_over_shows_predicted_measured_and_the_archive_table(new_page, server):
    measured = yesterday_played_and_measured(server)
    assert measured["players"] == 6 and measured["discounted"] == 1
    yesterday = (today() - dt.timedelta(days=1)).isoformat()
    page = new_page()
    page.goto(f"/daily/{yesterday}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    towers = page.locator('.day-deal[data-variant="SH1-C4"] .difficulty')
    assert towers.locator(".difficulty-predicted").get_attribute("data-level") != ""
    shown = towers.locator(".difficulty-measured")
    assert shown.get_attribute("data-level") == str(measured["level"])
    text = towers.inner_text()
    assert "83 % of 6 players won" in text
    assert "1 game resigned or abandoned in its first 3 moves is not counted" in text
    counts = [
        int(c)
        for c in towers.locator('.histogram[data-kind="moves"] .bucket').evaluate_all(
            "bs => bs.map(b => b.dataset.count)"
        )
    ]
    assert sum(counts) == measured["histogram"]["wins"]
    assert towers.locator(".bucket.mine").count() == 0  # no one's own result on the day page
    screenshot(page, "difficulty-day-over")

    # The archive's table: yesterday's rows, today's none.
    month = yesterday[:7]
    page.goto(f"/archive/?month={month}")
    page.wait_for_selector("#difficulty-table[aria-busy=false]")
    assert page.locator("#difficulty-error").inner_text() == ""
    row = page.locator(f'#difficulty-rows tr[data-date="{yesterday}"][data-variant="SH1-C4"]')
    cells = row.locator("td.level")
    assert cells.nth(0).get_attribute("data-level") != ""
    assert cells.nth(1).get_attribute("data-level") == str(measured["level"])
    assert "83 %" in row.inner_text()
    assert page.locator(f'#difficulty-rows tr[data-date="{today().isoformat()}"]').count() == 0
    unproven = page.locator(f'#difficulty-rows tr[data-date="{yesterday}"][data-variant="SH1-C1"]')
    assert unproven.locator("td.level").nth(0).inner_text() == "Unknown"
    screenshot(page, "difficulty-archive")
    # Phones: the table scrolls inside its box; the page keeps its width.
    phone = new_page(width=360, height=640)
    phone.goto(f"/archive/?month={month}")
    phone.wait_for_selector("#difficulty-table[aria-busy=false]")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 360
