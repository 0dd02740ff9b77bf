"""A day anyone can re-check, in the browser (issue 27, deliverable 3): the page
of a closed day shows the SHA-256 of its results file; the file downloaded from
the page hashes to it, and ``python -m games.engine verify-day`` run on it says
every result holds.

The day's games (two days ago, a day of this test's own) are played on the
server through the game services — the real action path — with Django's
clock set to that day's noon while they play
(as ``tests/support/fairplay.Clock`` does in process), then the after-the-day
job builds the file; today's page has no such block.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from tests.support.browser import screenshot
from tests.support.dayfile import verify_day_command

DAYS_AGO = 2
"""A day of this test's own: the conftest's yesterday has other tests' results
(some stored without their actions, which verify-day rightly refuses)."""

PLAY_THE_DAY = (
    f"DAYS_AGO = {DAYS_AGO}\n"
    + """
import datetime as dt, secrets
from unittest import mock
from django.utils import timezone
from accounts.models import User
from games.dailies import Effort, daily_deal_prepare, utc_today
from games.engine import new_game
from games.models import Attempt, DailyDeal, DayResults
from games.services import attempt_apply_action, attempt_resign, attempt_start
from games.tasks import build_day_results

real_now = timezone.now
day = utc_today() - dt.timedelta(days=DAYS_AGO)
easy = Effort(nodes=100_000, candidates=20, seconds=60)
daily = daily_deal_prepare(date=day, variant="SH1-C4", effort=easy)
daily_deal_prepare(date=day, variant="SH1-C1", effort=Effort(nodes=1, candidates=1, seconds=5))
noon = dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC)
started = real_now()
players = []
first = next(iter(new_game(daily.deal.code).legal_moves)).to_json()
lines = (daily.proof, [first, {"type": "undo"}, first])
with mock.patch("django.utils.timezone.now", lambda: noon + (real_now() - started)):
    for i, actions in enumerate(lines):
        name = f"recheck{i}-{secrets.token_hex(3)}"
        user = User.objects.create_user(name, password="correct horse battery")
        attempt, _ = attempt_start(player=user, daily="SH1-C4")
        assert attempt.daily_id == daily.pk
        Attempt.objects.filter(pk=attempt.pk).update(started_at=timezone.now())
        for seq, action in enumerate(actions):
            attempt_apply_action(attempt_id=attempt.pk, player=user, seq=seq, action=action)
        if not Attempt.objects.get(pk=attempt.pk).won:
            attempt_resign(attempt_id=attempt.pk, player=user)
        players.append(user.username)
build_day_results.delay(daily.pk)
built = DayResults.objects.get(daily=daily)
result = {"sha256": built.sha256, "count": built.count, "players": players}
"""
)


def test_a_closed_days_page_offers_its_results_file_and_the_command_passes(
    new_page, server, tmp_path
):
    built = server.python(PLAY_THE_DAY)
    assert built["count"] == 2
    day = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=DAYS_AGO)).isoformat()
    file = f"patience-daily-{day}-SH1-C4.jsonl"

    page = new_page()
    page.goto(f"/daily/{day}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    block = page.locator('.day-deal[data-variant="SH1-C4"] .day-results')
    assert block.get_attribute("data-built") == "true"
    assert "Re-check the leaderboard" in block.inner_text()
    shown = block.locator(".day-results-sha").inner_text().strip()
    assert shown == built["sha256"]
    commands = block.locator(".check-commands").inner_text()
    assert f"sha256sum {file}" in commands
    assert f"python -m games.engine verify-day {file}" in commands
    assert '"all 2 results hold"' in block.inner_text()

    link = block.locator("a.day-results-download")
    assert link.get_attribute("download") == file
    with page.expect_download() as saved:
        link.click()
    assert saved.value.suggested_filename == file
    path = tmp_path / file
    saved.value.save_as(path)
    data = path.read_bytes()
    assert hashlib.sha256(data).hexdigest() == shown
    assert all(name.encode() in data for name in built["players"])
    done = verify_day_command(path)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "all 2 results hold" in done.stdout
    screenshot(page, "daily-recheck")

    # The deal of the same day whose file is not built yet says when it will be.
    pending = page.locator('.day-deal[data-variant="SH1-C1"] .day-results')
    assert pending.get_attribute("data-built") == "false"
    assert "within the hour" in pending.inner_text()
    # On a phone the 64 hex digits wrap: the page stays as wide as the screen.
    phone = new_page(width=375, height=740)
    phone.goto(f"/daily/{day}/")
    phone.wait_for_selector("#day-deals[aria-busy=false]")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 375

    # A player on the board deletes their account (issue 37): the file is
    # re-issued naming them as the board does; the page says so, and when, and
    # lists the earlier hash.
    former = built["players"][0]
    reissued = server.python(
        f"""
from accounts.models import User
from accounts.privacy import account_anonymise
from games.models import DayResults
gone = account_anonymise(user=User.objects.get(username={former!r}))
file = DayResults.objects.get(daily__date__lt=gone.date_joined.date(), sha256__isnull=False,
                              daily__variant="SH1-C4", daily__attempts__player=gone)
result = {{"sha256": file.sha256, "placeholder": gone.username}}
"""
    )
    assert reissued["sha256"] != built["sha256"]
    page.goto(f"/daily/{day}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    block = page.locator('.day-deal[data-variant="SH1-C4"] .day-results')
    assert block.locator(".day-results-sha").inner_text().strip() == reissued["sha256"]
    note = block.locator(".day-results-reissued").inner_text()
    assert "This file was re-issued." in note and "deleted their account" in note
    assert block.locator(".day-results-earlier").inner_text().strip() == built["sha256"]
    with page.expect_download() as saved:
        block.locator("a.day-results-download").click()
    saved.value.save_as(path)
    data = path.read_bytes()
    assert former.encode() not in data and reissued["placeholder"].encode() in data
    assert hashlib.sha256(data).hexdigest() == reissued["sha256"]
    assert verify_day_command(path).returncode == 0
    screenshot(page, "daily-recheck-reissued")
    phone.goto(f"/daily/{day}/")
    phone.wait_for_selector(".day-results-reissued")
    assert phone.evaluate("() => document.documentElement.scrollWidth") <= 375

    # Today's page, its day running: no results block, no hash of a file.
    page.goto(f"/daily/{dt.datetime.now(dt.UTC).date().isoformat()}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    assert page.locator(".day-results").count() == 0
