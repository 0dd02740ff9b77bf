"""The race rating on the player page in real Chromium (issue 29): a player rated
by races (``races.signals.race_finished`` sent in the server's own settings, so
the leaderboard's receiver rates them as a race's end would) sees the rating, a
"?" and "provisional" while its deviation is high, and the last races; on a
360 px phone the page fits and by keyboard the history is reached."""

from __future__ import annotations

import re
import secrets
from typing import Any

from tests.support.a11y import serious_violations
from tests.support.browser import api, screenshot, sign_up


def races_won(server: Any, name: str, standings: list[list[str]]) -> None:
    """One race per entry of ``standings`` (the player names in their places, 1
    first), made-up players created as needed, each announced as ended."""
    server.python(
        "from accounts.models import User\n"
        "from races.signals import race_finished\n"
        "from races.services import race_create\n"
        f"for order in {standings!r}:\n"
        "    users = [User.objects.get_or_create(username=n)[0] for n in order]\n"
        "    race = race_create(host=users[0], code='SH1-C4-AAAAAAE')\n"
        "    race_finished.send(sender=None, race_id=race.pk, variant='SH1-C4',\n"
        "        standings=[(u.pk, place) for place, u in enumerate(users, 1)])\n"
    )


def test_the_player_page_shows_the_race_rating_and_the_last_races(new_page, server):
    page = new_page()
    name = sign_up(page)
    page.goto(f"/players/{name}/")
    page.wait_for_selector("#player-totals .tile")
    # No race yet: no rating, no history.
    assert page.locator("#player-race-rating").count() == 0
    assert page.locator("#player-races").is_hidden()

    rivals = [f"rival_{secrets.token_hex(3)}" for _ in range(2)]
    races_won(server, name, [[name, *rivals], [rivals[0], name, rivals[1]]])
    page.reload()
    page.wait_for_selector("#player-race-rating")
    rating = api(page, "GET", f"/api/players/{name}/")["race_rating"]
    tile = page.locator("#player-race-rating")
    assert rating["provisional"] is True and rating["races"] == 2
    assert tile.get_attribute("data-provisional") == "true"
    text = tile.inner_text()
    value = tile.locator(".tile-value").inner_text()
    assert re.sub(r"\D", "", value) == str(rating["rating"]) and value.endswith("?"), value
    assert "Race rating (provisional)" in text
    assert "after 2 races" in tile.get_attribute("title")
    rows = page.locator("#player-race-history tbody tr")
    assert rows.count() == 2
    newest, oldest = rows.nth(0).inner_text(), rows.nth(1).inner_text()
    assert "2 of 3" in newest and "1 of 3" in oldest
    assert "Seahaven" in oldest
    first = rating["history"][1]
    assert first["delta"] > 0 and f"(+{first['delta']})" in oldest, oldest
    assert re.search(r"\d \((\+\d|−\d|±0)", newest), newest
    assert serious_violations(page) == []
    screenshot(page, "player-race-rating")

    # A settled rating (deviation under 110): no "?", no "provisional".
    server.python(
        "from leaderboard.models import RaceRating\n"
        f"RaceRating.objects.filter(player__username={name!r}).update(deviation=60)\n"
    )
    page.reload()
    page.wait_for_selector("#player-race-rating[data-provisional=false]")
    text = page.inner_text("#player-race-rating")
    assert "?" not in text and "provisional" not in text and "Race rating" in text

    # A phone: the page and the history fit 360 px; the table is reached by Tab.
    phone = new_page(width=360, height=640)
    phone.goto(f"/players/{name}/")
    phone.wait_for_selector("#player-races:not([hidden])")
    assert phone.evaluate(
        "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth + 1"
    )
    assert phone.evaluate(
        "() => { const w = document.querySelector('#player-races .table-wrap');"
        " return w.scrollWidth <= w.clientWidth + 1; }"
    )
    # Each race still kept links its page.
    kept = [h["race"] for h in rating["history"] if h["race"] is not None]
    assert len(kept) == 2
    links = phone.locator("#player-race-history a")
    assert [links.nth(i).get_attribute("href") for i in range(links.count())] == [
        f"/race/{race}/" for race in kept
    ]
    for _ in range(40):
        phone.keyboard.press("Tab")
        if phone.evaluate("() => document.activeElement.closest('#player-races') !== null"):
            break
    else:
        raise AssertionError("the race history is not reached by keyboard")
    assert serious_violations(phone) == []
    screenshot(phone, "player-race-rating-360x640")
