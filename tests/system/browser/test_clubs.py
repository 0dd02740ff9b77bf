"""Clubs and following in real browsers (issue 29, deliverables 2 and 3).

A player makes a club on /clubs/ and copies its invite link; a second player,
in a browser context of their own on a 360-px phone, opens the link and joins.
Both then see the club's board of today's Seahaven Towers (4 cells) with their
results, ranked among the members with their overall rank, and the weekly
standing; a result stored while the pages are open (its announcement sent as
the games announce one) appears on both without a reload. The first player
follows the second from their player page, and the leaderboard's "Following"
filter shows the two of them only (not a third player ahead of both), each
with their rank among them and overall; the first player's result card says
"#2 of 2 you follow · #2 of 2 in <club>". The phone's page is never wider than the
screen."""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

from tests.support.browser import api, screenshot, sign_up


def result(server: Any, username: str, score: int, *, announce: bool = False) -> int:
    """A finished ranked result of ``username`` on today's SH1-C4 (a win): its id."""
    return server.python(
        "from django.utils import timezone\n"
        "from accounts.models import User\n"
        "from games.dailies import daily_deal_get, utc_today\n"
        "from games.models import Attempt\n"
        "from games.services import _create_attempt\n"
        "from games.signals import result_changed\n"
        "daily = daily_deal_get(date=utc_today(), variant='SH1-C4')\n"
        f"user = User.objects.get(username={username!r})\n"
        "a = _create_attempt(player=user, deal=daily.deal, daily=daily, ranked=True)\n"
        "Attempt.objects.filter(pk=a.pk).update(status='won', won=True, verified=True,"
        f" score={score}, moves=90, elapsed_ms=120_000, finished_at=timezone.now())\n"
        f"if {announce!r}:\n"
        "    result_changed.send(sender=Attempt, attempt=Attempt.objects.get(pk=a.pk))\n"
        "result = a.pk\n"
    )


def rows(page: Any) -> list[str]:
    return page.eval_on_selector_all(
        '[data-club-variant="SH1-C4"] tbody tr[data-player]', "rs => rs.map(r => r.dataset.player)"
    )


def not_wider_than_the_screen(page: Any) -> None:
    width = page.evaluate("() => document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


def test_a_club_made_joined_by_link_and_its_live_board(new_page, server):
    owner_page = new_page()
    owner = sign_up(owner_page)
    owner_result = result(server, owner, 700)
    owner_page.goto("/")
    owner_page.click("#clubs-link")
    owner_page.wait_for_url("**/clubs/")
    name = f"Club {secrets.token_hex(3)}"
    owner_page.fill("#club-name", name)
    owner_page.keyboard.press("Enter")  # by keyboard: the form submits
    owner_page.wait_for_url("**/clubs/club-*/")
    owner_page.wait_for_selector("#club-inside:not([hidden])")
    assert owner_page.inner_text("#club-name") == name
    invite = owner_page.inner_text("#club-invite")
    assert "/clubs/join/" in invite

    phone = new_page(width=360, height=640)
    member = sign_up(phone)
    phone.goto(invite)
    phone.click("#club-invite-join")
    phone.wait_for_url(owner_page.url)
    phone.wait_for_selector(f'[data-club-variant="SH1-C4"] tr[data-player="{owner}"]')
    assert rows(phone) == [owner]
    phone.wait_for_selector(f'#club-members li[data-player="{member}"]')

    # A result while both pages are open: it comes over the day's board socket.
    owner_page.reload()
    owner_page.wait_for_selector(f'#club-members li[data-player="{member}"]')
    owner_page.wait_for_selector("#connection[data-state=open]")
    phone.wait_for_selector("#connection[data-state=open]")
    result(server, member, 800, announce=True)
    for page in (owner_page, phone):
        page.wait_for_function(
            """n => [...document.querySelectorAll(
                '[data-club-variant="SH1-C4"] tbody tr[data-player]')]
                .map(r => r.dataset.player).join() === n""",
            arg=f"{member},{owner}",
        )
        cells = page.inner_text(f'[data-club-variant="SH1-C4"] tr[data-player="{member}"] .rank')
        assert cells.strip() == "1"
        page.wait_for_selector(f'#week-rows tr[data-player="{member}"]')
    week = phone.eval_on_selector_all(
        "#week-rows tr",
        "rs => rs.map(r => [r.dataset.player, r.querySelector('.points').textContent])",
    )
    assert week == [[member, "2"], [owner, "1"]]
    not_wider_than_the_screen(phone)
    screenshot(phone, "club-phone")
    screenshot(owner_page, "club-desk")

    # Following: the owner follows the member; the board's filter shows the two.
    owner_page.goto(f"/players/{member}/")
    owner_page.click("#player-follow[aria-pressed=false]")
    owner_page.wait_for_selector("#player-follow[aria-pressed=true]")
    stranger = f"s{secrets.token_hex(4)}"  # on the board, neither followed nor in the club
    server.python(
        f"from accounts.models import User\nUser.objects.create_user(username={stranger!r})"
    )
    result(server, stranger, 900)
    owner_page.goto(f"/leaderboard/{dt.datetime.now(dt.UTC).date().isoformat()}/SH1-C4/")
    owner_page.wait_for_selector(f'#lb-rows tr[data-player="{stranger}"]')
    owner_page.select_option("#lb-filter", "following")
    owner_page.wait_for_function(
        """n => [...document.querySelectorAll('#lb-rows tr')]
            .map(r => r.dataset.player).join() === n""",
        arg=f"{member},{owner}",
    )
    assert "following=1" in owner_page.url
    rank = owner_page.inner_text(f'#lb-rows tr[data-player="{owner}"] .rank')
    assert rank.startswith("2") and "#3 overall" in rank, rank
    # The club is a choice of the filter too.
    slug = owner_page.evaluate(
        "() => [...document.querySelectorAll('#lb-filter option')].map(o => o.value)"
    )
    assert any(value.startswith("club:club-") for value in slug), slug
    screenshot(owner_page, "board-following")

    # The result card ranks the owner among those they follow and in the club.
    owner_page.goto(f"/play/{owner_result}/#result")
    owner_page.wait_for_selector("#win[open] #win-circles:not([hidden])")
    line = owner_page.inner_text("#win-circles")
    assert line == f"#2 of 2 you follow · #2 of 2 in {name}", line
    screenshot(owner_page, "card-circles")


NAV_FITS = """() => {
    const n = document.querySelector('.site-nav');
    return n.scrollWidth <= n.clientWidth;
}"""


def test_the_header_leads_a_signed_in_player_to_their_clubs(new_page, server):
    """The header's Clubs (an account's only, as the lobby's): in view beside the
    other five links on a 360-px phone and a landscape one, on a page and a game;
    it opens /clubs/ (marked the current page there and on a club's page). A
    visitor and a guest, who can have no club, see none."""
    page = new_page(width=360, height=740)
    name = sign_up(page)
    game = server.python(
        "from accounts.models import User\n"
        "from games.dailies import daily_deal_get, utc_today\n"
        "from games.services import _create_attempt\n"
        "daily = daily_deal_get(date=utc_today(), variant='SH1-C4')\n"
        f"user = User.objects.get(username={name!r})\n"
        "result = _create_attempt(player=user, deal=daily.deal, daily=daily, ranked=True).pk\n"
    )
    for path in ("/", f"/play/{game}/"):
        page.goto(path)
        for size in ((360, 740), (390, 844), (640, 360), (844, 390), (1366, 768)):
            page.set_viewport_size({"width": size[0], "height": size[1]})
            assert page.locator("#nav-clubs").is_visible(), (path, size)
            assert page.evaluate(NAV_FITS), f"the site's links scroll at {size} on {path}"
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto("/")
    assert page.get_attribute("#nav-clubs", "aria-current") is None
    page.click("#nav-clubs")
    page.wait_for_url("**/clubs/")
    assert page.get_attribute("#nav-clubs", "aria-current") == "page"
    assert page.inner_text("#clubs-title") == "Clubs"
    page.wait_for_selector("#my-clubs-empty:not([hidden])")
    not_wider_than_the_screen(page)
    screenshot(page, "clubs-nav-360x740")
    page.fill("#club-name", f"Nav {secrets.token_hex(3)}")
    page.click("#club-create")
    page.wait_for_url("**/clubs/nav-*/")
    assert page.get_attribute("#nav-clubs", "aria-current") == "page"
    page.set_viewport_size({"width": 1366, "height": 768})
    page.goto("/clubs/")
    page.wait_for_selector("#my-clubs li")
    screenshot(page, "clubs-nav-1366x768")

    visitor = new_page(width=360, height=740)
    visitor.goto("/")
    visitor.wait_for_selector("#deals[aria-busy=false]")
    assert visitor.locator("#nav-clubs").count() == 0
    visitor.click('.deal[data-variant="SH1-C4"] [data-start="SH1-C4"]')  # now a guest
    visitor.wait_for_url("**/play/*/")
    assert visitor.get_attribute("body", "data-guest") == "1"
    assert visitor.locator("#nav-clubs").count() == 0
    visitor.goto("/")
    assert visitor.locator("#nav-clubs").count() == 0


def test_a_players_page_ranks_them_among_a_club_the_viewer_shares(new_page, server):
    """On the page of a player in one of the viewer's clubs, "Ranks among:
    Everyone / <club>" (as the leaderboard's Show): the club shows the player's
    rank among its members on each daily, kept in the URL. The page of a player
    in none of the viewer's clubs, and any page to a visitor, has no such choice."""
    page = new_page(width=360, height=740)
    owner = sign_up(page)
    name = f"Ranks {secrets.token_hex(3)}"
    club = api(page, "POST", "/api/clubs/", {"name": name})
    other = new_page()
    member = sign_up(other)
    api(other, "POST", "/api/clubs/join/", {"code": club["code"]})
    stranger = sign_up(new_page())
    result(server, owner, 700)
    result(server, member, 800)
    result(server, stranger, 900)
    day = dt.datetime.now(dt.UTC).date().isoformat()

    page.goto(f"/players/{member}/")
    page.wait_for_selector("#player-ranks:not([hidden])")
    options = page.eval_on_selector_all(
        "#player-ranks-among option", "os => os.map(o => [o.value, o.textContent])"
    )
    assert options == [["", "Everyone"], [club["slug"], name]]
    assert page.locator("#player-ranks-hint").is_visible()
    assert page.locator("#player-club-ranks").is_hidden()
    page.select_option("#player-ranks-among", club["slug"])
    row = page.locator(f'#player-club-ranks tr[data-date="{day}"][data-variant="SH1-C4"]')
    row.wait_for()
    assert row.locator(".rank").inner_text() == "#1 of 2"  # among the two members, not 2 of 3
    assert page.locator("#player-ranks-hint").is_hidden()
    assert page.url.endswith(f"?club={club['slug']}")
    link = row.locator("a").get_attribute("href")
    assert link == f"/leaderboard/{day}/SH1-C4/?club={club['slug']}"
    not_wider_than_the_screen(page)
    screenshot(page, "player-club-ranks-360x740")
    # The choice is in the URL: a reload (or a shared link) shows the same.
    page.set_viewport_size({"width": 1366, "height": 768})
    page.reload()
    row.wait_for()
    assert page.input_value("#player-ranks-among") == club["slug"]
    screenshot(page, "player-club-ranks-1366x768")
    page.select_option("#player-ranks-among", "")
    page.wait_for_selector("#player-club-wrap", state="hidden")
    assert "club=" not in page.url
    # My own page: my rank in my club.
    page.goto(f"/players/{owner}/?club={club['slug']}")
    page.wait_for_selector(f'#player-club-ranks tr[data-date="{day}"] .rank')
    assert page.inner_text(f'#player-club-ranks tr[data-date="{day}"] .rank') == "#2 of 2"

    # No club shared, or signed out: no choice.
    page.goto(f"/players/{stranger}/")
    page.wait_for_selector("#player-variants tbody tr")
    page.wait_for_timeout(500)  # the clubs' answer has come
    assert page.locator("#player-ranks").is_hidden()
    visitor = new_page()
    visitor.goto(f"/players/{member}/?club={club['slug']}")
    visitor.wait_for_selector("#player-variants tbody tr")
    visitor.wait_for_timeout(500)
    assert visitor.locator("#player-ranks").is_hidden()
    assert visitor.inner_text("#player-error") == ""
