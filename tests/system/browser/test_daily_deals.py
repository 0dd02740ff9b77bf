"""Fair daily deals in the browser (issue 13; PRODUCT.md "Fair daily deals"):
while a day runs no page shows a daily's code — the lobby shows each deal's
commitment and par, a finished player is offered no practice of it (an old
practice game of it names no code), and replays stay closed, saying why; once
the day is over, its page reveals codes that hash to the commitments, with the
commands to check them.

The server keys the deals with a secret of its own (conftest): the tests learn
a code from the server's database (``server.daily``), never from a page.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
import re
from pathlib import Path

from games.engine import ALL_VARIANTS, new_game
from games.engine.cli import main as engine_cli
from tests.support.browser import assert_board_is, open_daily, resign, screenshot, sign_up
from tests.support.days import today

VARIANTS = list(ALL_VARIANTS)


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def test_the_lobby_shows_each_deals_commitment_and_par_and_no_code(new_page, server):
    page = new_page()
    sign_up(page)
    for variant in VARIANTS:
        deal = server.daily(variant)
        entry = page.locator(f'.deal[data-variant="{variant}"]')
        commitment = entry.locator(".commitment")
        assert commitment.get_attribute("data-commitment") == sha256(deal["code"])
        assert commitment.inner_text().strip() == sha256(deal["code"])[:12] + "…"
        assert sha256(deal["code"]) in commitment.get_attribute("title")
        par = entry.locator(".par")
        if deal["par"] is None:
            assert par.get_attribute("data-par") == ""
        else:
            assert par.get_attribute("data-par") == str(deal["par"])
            assert str(deal["par"]) in par.inner_text()
        assert deal["code"] not in page.content()
    assert server.daily("SH1-C4")["par"], "conftest proves today's SH1-C4"
    page.click("#fair-play summary")  # behind its disclosure (issue 24)
    note = page.inner_text("#seal-note")
    assert "sealed" in note and "revealed when the day is over" in note
    yesterday = (today() - dt.timedelta(days=1)).isoformat()
    assert page.get_attribute("#yesterday-link", "href") == f"/daily/{yesterday}/"
    screenshot(page, "lobby-sealed")


def test_a_past_days_page_reveals_codes_that_hash_to_the_commitments(new_page, server):
    """Anyone, signed in or not, can check yesterday's deals: the code hashes to
    the commitment shown, the commands are filled in with the day's values, and
    the proof offered for download replays to a win with the engine's command line."""
    yesterday = (today() - dt.timedelta(days=1)).isoformat()
    page = new_page()
    page.goto(f"/daily/{yesterday}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    assert page.get_attribute("#day-state", "data-state") == "revealed"

    entry = page.locator('.day-deal[data-variant="SH1-C4"]')
    code = entry.locator(".day-code").inner_text().strip()
    commitment = entry.locator(".day-commitment").inner_text().strip()
    assert sha256(code) == commitment
    stored = server.daily("SH1-C4", yesterday)
    assert code == stored["code"] and stored["proof"]
    assert entry.get_attribute("data-proven") == "true"
    assert str(stored["par"]) in entry.locator(".par").inner_text()
    assert entry.locator(".proof-length").get_attribute("data-length") == str(len(stored["proof"]))
    commands = entry.locator(".check-commands").inner_text()
    proof_file = f"proof-SH1-C4-{yesterday}.jsonl"
    assert f"printf '%s' '{code}' | sha256sum" in commands
    assert f"python -m games.engine deal '{code}'" in commands
    assert f"python -m games.engine replay '{code}' < {proof_file}" in commands
    assert entry.locator(f'a[href="/leaderboard/{yesterday}/SH1-C4/"]').count() == 1

    # The download is made in the page from the API's proof: the engine replays it to a win.
    download = entry.locator("a.proof-download")
    assert download.get_attribute("download") == proof_file
    # Downloaded as a player does, by the link (the page's Content-Security-Policy
    # lets no script fetch the blob: URL, and a download needs none).
    with page.expect_download() as saved:
        download.click()
    lines = Path(saved.value.path()).read_text()
    out = io.StringIO()
    assert engine_cli(["replay", code], stdin=io.StringIO(lines), stdout=out) == 0
    assert json.loads(out.getvalue())["won"] is True
    assert [json.loads(line) for line in lines.splitlines()] == stored["proof"]

    # A deal the solver could not prove says so plainly, and offers no proof.
    unproven = page.locator('.day-deal[data-variant="SH1-C1"]')
    assert unproven.get_attribute("data-proven") == "false"
    assert "could not be proven winnable" in unproven.inner_text()
    assert unproven.locator("a.proof-download").count() == 0
    code_c1 = unproven.locator(".day-code").inner_text().strip()
    assert sha256(code_c1) == unproven.locator(".day-commitment").inner_text().strip()
    screenshot(page, "daily-revealed")
    phone = new_page(width=375, height=740)
    phone.goto(f"/daily/{yesterday}/")
    phone.wait_for_selector("#day-deals[aria-busy=false]")
    width = phone.evaluate("() => document.documentElement.scrollWidth")
    assert width <= 375, f"the day's page is {width} px wide on a 375-px phone"

    # Days around it: today's page (sealed), the day before (none stored), a bad date.
    page.click("#day-next")
    page.wait_for_url(re.compile(rf"/daily/{today().isoformat()}/$"))
    page.wait_for_selector("#day-deals[aria-busy=false]")
    assert page.get_attribute("#day-state", "data-state") == "sealed"
    assert "00:00 UTC" in page.inner_text("#day-state")
    assert page.locator(".day-code").count() == 0
    assert page.locator("#day-next").count() == 0
    sealed = page.locator('.day-deal[data-variant="SH1-C4"] .day-commitment').inner_text()
    assert sealed.strip() == sha256(server.daily("SH1-C4")["code"])
    assert server.daily("SH1-C4")["code"] not in page.content()
    screenshot(page, "daily-sealed")

    page.goto(f"/daily/{yesterday.replace('-', '')}/")  # a non-canonical date
    assert page.url.endswith(f"/daily/{yesterday}/")
    assert page.goto("/daily/2026-02-30/").status == 404
    future = (today() + dt.timedelta(days=1)).isoformat()
    assert page.goto(f"/daily/{future}/").status == 404


def test_no_practice_of_a_running_daily_is_offered_and_an_old_one_names_no_code(new_page, server):
    """No practice copy of a running daily, for anyone (issue 36): once the ranked
    attempt is over the lobby offers its result, not a practice, and "Same deal"
    waits for the day's end. A practice game of the daily dealt before that rule
    still shows the daily's cards without ever naming its code."""
    page = new_page()
    name = sign_up(page)
    ranked = open_daily(page, "SH1-C4")
    resign(page)
    code = server.daily("SH1-C4")["code"]
    label = f"Daily · {today().isoformat()}"

    # The ranked game's New game window: "Same deal" is not offered while the day runs.
    page.click("#new-game")
    assert "once its day is over (00:00 UTC)" in page.inner_text("#ng-same-row")
    assert page.is_disabled("input[name=kind][value=same]")
    page.click("#new-game-cancel")

    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")
    deal = page.locator('.deal[data-variant="SH1-C4"]')
    assert deal.locator("[data-result-link]").count() == 1
    assert page.locator("[data-practise]").count() == 0
    assert "Practise" not in deal.inner_text()

    practice = server.legacy_daily_practice(name, "SH1-C4")
    assert practice != ranked
    page.goto(f"/play/{practice}/")
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    assert page.inner_text("#code").strip() == label
    assert "practice" in page.inner_text("#game-title")
    assert not page.is_visible("#copy-code")
    assert_board_is(page, new_game(code))  # the daily's cards, without its name
    assert code not in page.inner_text("body")
    assert code not in page.content()  # nor in any attribute
    screenshot(page, "daily-practice")
    page.click("#new-game")
    assert label not in page.inner_text("#ng-same-row")
    assert page.is_disabled("input[name=kind][value=same]")
    assert page.evaluate("localStorage.getItem('patience.lastCode')") in (None, "")


def test_a_resigned_player_is_told_why_replays_are_closed(new_page, server):
    """A resigned player has not seen every card: the day's replays (their own too)
    and live games stay closed until it is over, and each page says why."""
    player, other = new_page(), new_page()
    sign_up(player)
    playing = open_daily(player, "SH1-C4")  # still playing
    sign_up(other)
    mine = open_daily(other, "SH1-C4")
    resign(other)

    day = today().isoformat()
    other.goto(f"/leaderboard/{day}/SH1-C4/")
    other.wait_for_selector("#lb-closed:not([hidden])")
    assert "open to players who won it" in other.inner_text("#lb-closed")
    assert other.locator("#lb-closed").count() == 1
    assert other.locator("#lb-rows a.replay-link").count() == 0
    assert other.get_attribute("#lb-day", "href") == f"/daily/{day}/"
    screenshot(other, "leaderboard-replays-closed")

    other.goto(f"/replay/{mine}/")
    other.wait_for_selector("#spoiler:not([hidden])")
    assert other.get_attribute("#spoiler", "data-code") == "spoiler"
    assert "day is still running" in other.inner_text("#spoiler-reason")
    screenshot(other, "replay-spoiler")

    other.goto(f"/watch/{playing}/")
    other.wait_for_selector("#spoiler:not([hidden])")
    assert "day is still running" in other.inner_text("#spoiler-reason")
    assert other.get_attribute("#connection", "data-state") == "closed"
    screenshot(other, "watch-spoiler")
