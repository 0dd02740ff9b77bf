"""Race rooms in real browsers (issue 29, deliverable 1): two players race to a
finish — the host opens a room from the lobby, the other joins by its link, the
host starts, both see the countdown and each other's progress move, one wins,
both see the standings; a spectator follows a racer and gets every replay after
the end, and sees no card of the race (nor its code before the start); the room and the
racer's board on a 360 px phone; the room's controls by keyboard, an invitation
by name found in the invitee's lobby; a past day's page races its Seahaven deal,
never its Easy Harp one (issue 36: public once the day is over).

The moves are posted from each racer's page's own session over the API, as the
finish tests do (``post_actions``): the pages follow them over their websockets.
The race API is ``races/`` (docs/api.md, "Race rooms").
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest

from tests.support.a11y import WIDEST, violations
from tests.support.browser import WIN_CODE, api, post_actions, screenshot, sign_up
from tests.support.csp import Watched

# A card as the engine writes it (7H, TD, 10S…).
CARD = re.compile(r"(?<![A-Za-z0-9])(?:10|[A2-9TJQK])[CDHS](?![A-Za-z0-9])")
ROOM = re.compile(r"/race/([A-Za-z0-9]+)/$")


def open_room(page: Any, code: str = WIN_CODE) -> str:
    """The host opens a room on deal ``code`` from the lobby's Race window; its id."""
    page.goto("/")
    page.click("#race-new")
    page.fill("#race-code", code)
    page.click("#race-create")
    page.wait_for_url(ROOM)
    page.wait_for_selector("#race[data-status=open]")
    match = ROOM.search(page.url)
    assert match
    return match.group(1)


def join(page: Any, race: str) -> None:
    page.goto(f"/race/{race}/")
    page.wait_for_selector("#race[data-status=open]")
    page.click("#race-join")
    page.wait_for_selector("#race-join", state="hidden")


def wait_racer(page: Any, player: str, **attrs: object) -> None:
    """Until ``player``'s row (room) or chip (a racer's strip) has ``attrs``."""
    where = "".join(f'[data-{k}="{v}"]' for k, v in attrs.items())
    page.wait_for_selector(f'li[data-player="{player}"]{where}', timeout=20_000)


def on_board(page: Any) -> int:
    """A racer's page once the race started: the play page for their attempt."""
    page.wait_for_selector("#race-strip #race-chips li", timeout=20_000)
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    return int(page.get_attribute("#play", "data-attempt"))


def wait_started(page: Any) -> None:
    """The countdown was shown, and its time has come (input is open)."""
    page.wait_for_selector("#race-countdown[data-starts-at]", state="attached")
    page.wait_for_function(
        "() => Date.now() >= Date.parse(document.querySelector('#race-countdown')"
        ".dataset.startsAt)",
        timeout=30_000,
    )


def start_race(host: Any, racers: list[Any]) -> list[int]:
    host.click("#race-start")
    attempts = [on_board(page) for page in racers]
    for page in racers:
        wait_started(page)
    return attempts


def frames_of(page: Any) -> list[str]:
    """Every websocket frame ``page`` receives, as text, from now on."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    return frames


def test_two_browsers_race_to_a_finish(new_page):
    from tests.support.search import find_win

    line = [a.to_json() for a in find_win(WIN_CODE) or []]
    assert line
    host, guest = new_page(), new_page()
    watched = [Watched(host), Watched(guest)]  # no script error, nothing the policy blocks
    host_name, guest_name = sign_up(host), sign_up(guest)
    race = open_room(host)
    assert host.input_value("#race-url").endswith(f"/race/{race}/")
    assert host.locator("#race-start").is_disabled()  # one racer: not yet

    join(guest, race)
    wait_racer(host, guest_name, status="waiting")  # the host sees the newcomer live
    assert host.locator("#race-start").is_enabled()
    screenshot(host, "race-room-host")
    assert guest.locator("#race-start").is_hidden()  # only the host starts

    host_attempt, guest_attempt = start_race(host, [host, guest])
    assert host_attempt != guest_attempt
    screenshot(guest, "race-board-guest")

    # The guest plays five moves: the host's strip shows them, as progress only.
    post_actions(guest, guest_attempt, 0, line[:5])
    wait_racer(host, guest_name, moves=5)
    assert (
        host.locator(f'#race-chips li[data-player="{guest_name}"]').get_attribute("data-status")
        == "racing"
    )

    # The host wins: the guest sees it, place 1, while still racing.
    post_actions(host, host_attempt, 0, line)
    wait_racer(guest, host_name, status="won")
    screenshot(guest, "race-board-rival-won")

    # The winner's result card opens after the cascade, as on any game page
    # (the standings wait for it to close: one dialog at a time).
    host.wait_for_selector("#win", state="visible", timeout=20_000)
    host.click("#win-close")

    # The guest resigns: the race is over, both see the standings.
    guest.on("dialog", lambda d: d.accept())
    guest.click("#resign")
    for page in (host, guest):
        page.wait_for_selector("#race-end", state="visible", timeout=20_000)
        page.wait_for_selector(f'#race-standings li[data-player="{host_name}"][data-place="1"]')
        page.wait_for_selector(f'#race-standings li[data-player="{guest_name}"][data-place="2"]')
    screenshot(host, "race-standings-host")
    assert host.locator("#race-rematch").is_visible()  # the host may call a rematch
    assert guest.locator("#race-rematch").is_hidden()
    # The rematch: a new room, same host; the other racer is led to it.
    host.click("#race-rematch")
    host.wait_for_url(lambda url: ROOM.search(url) is not None and race not in url)
    host.wait_for_selector("#race[data-status=open]")
    rematch = ROOM.search(host.url)
    assert rematch
    guest.wait_for_selector("#race-rematch-join", state="visible", timeout=20_000)
    assert guest.get_attribute("#race-rematch-join", "href") == f"/race/{rematch.group(1)}/"
    guest.click("#race-rematch-join")
    guest.wait_for_selector("#race[data-status=open]")
    guest.click("#race-join")
    wait_racer(host, guest_name, status="waiting")
    for each in watched:
        each.assert_clean()


def test_a_past_day_races_its_seahaven_deal_and_never_its_easy_harp_one(new_page, server):
    """Easy Harp hides cards: its races are dealt a fresh secret deal, and a past
    day's deal is public (the page names its code), so the day's page offers no
    "Race this deal" for it — the API refuses it too (409 ``secret_deal``,
    tests/races/test_api.py) — but still plays it; its Seahaven deal is raced."""
    day = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=30)).isoformat()
    for variant in ("EH1-N", "SH1-C4"):
        server.daily(variant, day)  # made and stored: the day's page shows them
    page = new_page()
    watched = Watched(page)
    page.goto(f"/daily/{day}/")
    page.wait_for_selector("#day-deals[aria-busy=false]")
    harp = page.locator('.day-deal[data-variant="EH1-N"]')
    seahaven = page.locator('.day-deal[data-variant="SH1-C4"]')
    assert harp.locator(".day-code").count() == 1 and harp.locator(".play-deal").count() == 1
    assert harp.locator(".race-deal, [data-race-variant]").count() == 0
    assert "Race this deal" not in harp.inner_text()
    assert seahaven.locator(".race-deal").inner_text().strip() == "Race this deal"
    seahaven.locator(".race-deal").click()  # signed out: as a guest
    page.wait_for_url(ROOM)
    page.wait_for_selector("#race[data-status=open]")
    watched.assert_clean()


def test_a_spectator_follows_a_racer_and_sees_no_card_until_the_replays(new_page):
    from tests.support.search import find_win

    line = [a.to_json() for a in find_win(WIN_CODE) or []]
    host, racer, spectator = new_page(), new_page(), new_page()
    sign_up(host)
    racer_name = sign_up(racer)
    sign_up(spectator)
    race = open_room(host)
    join(racer, race)
    frames = frames_of(spectator)
    spectator.goto(f"/race/{race}/")
    spectator.wait_for_selector("#race[data-status=open]")
    assert spectator.locator("#race-join").is_visible()
    # Before the start nobody is told the deal (after it, the race JSON names its code).
    before = spectator.eval_on_selector("#api-prefill", "e => e.textContent") + "".join(frames)
    assert WIN_CODE not in before
    assert '"code":null' in before.replace(" ", "")
    host_attempt, racer_attempt = start_race(host, [host, racer])

    spectator.wait_for_selector("#race[data-status=running]")
    spectator.click(f'[data-follow="{racer_name}"]')
    spectator.wait_for_selector("#race-follow .foundation-bars li")
    post_actions(racer, racer_attempt, 0, line[:4])
    wait_racer(spectator, racer_name, moves=4)
    spectator.wait_for_selector(
        f'[data-follow="{racer_name}"][aria-pressed=true]'
    )  # still followed after the redraws
    screenshot(spectator, "race-spectator-following")
    # Progress only: no card in the page nor in any frame while the race runs.
    # (The page's own markup has card-like bytes of its own: a favicon's %3Csvg.)
    prefill = spectator.eval_on_selector("#api-prefill", "e => e.textContent")
    seen = prefill + spectator.inner_html("#race") + "".join(frames)
    assert '"type": "progress"' in "".join(frames) or '"type":"progress"' in "".join(frames)
    assert not CARD.search(seen), CARD.search(seen)

    for page, attempt in ((host, host_attempt), (racer, racer_attempt)):
        api(page, "POST", f"/api/games/{attempt}/resign/", {})
    spectator.wait_for_selector("#race[data-status=finished]", timeout=20_000)
    spectator.wait_for_selector("#racers.standings li[data-place]")
    # How many raced, not seats ("2 of 6" read as 2nd of 6: issue 39).
    assert spectator.inner_text("#race-count").strip() == "2 racers"
    replays = spectator.eval_on_selector_all("#racers .race-replay", "els => els.map(e => e.href)")
    assert sorted(replays) == sorted(
        f"{spectator.url.split('/race/')[0]}/replay/{a}/" for a in (host_attempt, racer_attempt)
    )
    screenshot(spectator, "race-spectator-standings")


def order_of(page: Any) -> list[str]:
    """The room's racers, top to bottom."""
    return page.eval_on_selector_all("#racers > li", "els => els.map(e => e.dataset.player)")


def wait_place(page: Any, place: int, words: str) -> None:
    """Until the racer's strip shows their own live place ``place`` as ``words``."""
    page.wait_for_selector(f'#race-place[data-place="{place}"]', timeout=20_000)
    assert page.inner_text("#race-place") == words


def test_live_places_follow_cards_home(new_page):
    """While the race runs, each racer's strip shows their own place ("2nd of 2")
    and the spectator's list is in place order, both in the final standings'
    order: more cards home first (the first move of WIN_CODE's line sends a card
    home, the first four three)."""
    from tests.support.search import find_win

    line = [a.to_json() for a in find_win(WIN_CODE) or []]
    host, guest = new_page(width=360, height=740), new_page()
    spectator = new_page()
    host_name, guest_name = sign_up(host), sign_up(guest)
    sign_up(spectator)
    race = open_room(host)
    join(guest, race)
    spectator.goto(f"/race/{race}/")
    spectator.wait_for_selector("#race[data-status=open]")
    assert spectator.locator("#racers li[data-place='']").count() == 2  # no place before the start
    host_attempt, guest_attempt = start_race(host, [host, guest])
    spectator.wait_for_selector("#race[data-status=running]")

    # Nobody has a card home: equal, both first.
    for page in (host, guest):
        wait_place(page, 1, "1st of 2")
    wait_racer(spectator, host_name, place=1)
    wait_racer(spectator, guest_name, place=1)

    # The guest sends a card home: the guest is first, the host second.
    post_actions(guest, guest_attempt, 0, line[:1])
    wait_place(host, 2, "2nd of 2")
    wait_place(guest, 1, "1st of 2")
    wait_racer(host, guest_name, place=1)  # the chips too
    wait_racer(spectator, guest_name, place=1, home=1)
    wait_racer(spectator, host_name, place=2)
    assert order_of(spectator) == [guest_name, host_name]
    screenshot(host, "race-board-place-360x740")
    strip = host.locator("#race-strip").bounding_box()
    place = host.locator("#race-place").bounding_box()
    board = host.locator("#board-wrap").bounding_box()
    assert strip and place and board
    assert strip["y"] + strip["height"] <= board["y"] + 1, (strip, board)  # never over the board
    assert place["x"] >= 0 and place["x"] + place["width"] <= 360, place
    assert host.evaluate("() => document.documentElement.scrollWidth <= 360")

    # The host sends three home: the order turns over, live, for everyone.
    post_actions(host, host_attempt, 0, line[:4])
    wait_place(host, 1, "1st of 2")
    wait_place(guest, 2, "2nd of 2")
    wait_racer(spectator, host_name, place=1, home=3)
    wait_racer(spectator, guest_name, place=2)
    assert order_of(spectator) == [host_name, guest_name]
    # Progress only: the new text names no card.
    for page in (host, guest):
        assert not CARD.search(page.inner_text("#race-place"))
    assert not CARD.search(spectator.inner_html("#racers"))


def test_a_place_in_words_has_the_english_ordinal(new_page):
    page = new_page()
    page.goto("/")
    words = page.evaluate(
        """async (places) => {
            const { placeWords } = await import("/static/frontend/js/race.js");
            return places.map((n) => placeWords(n, 50));
        }""",
        [1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 40],
    )
    ordinals = ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "40th"]
    assert words == [f"{n} of 50" for n in ordinals]


def test_the_room_and_the_racers_board_on_a_phone_and_by_keyboard(new_page):
    host, other = new_page(width=360, height=640), new_page(width=360, height=640)
    sign_up(host)
    other_name = sign_up(other)
    race = open_room(host)
    # Invited by name, by keyboard: the invitee finds the room in the lobby.
    host.focus("#race-invite-name")
    host.keyboard.type(other_name)
    host.keyboard.press("Enter")
    host.wait_for_selector(f'#race-invite-status:has-text("{other_name}")')
    other.goto("/")
    other.click(f'#race-invites li[data-race="{race}"] a')
    other.wait_for_url(ROOM)
    other.wait_for_selector("#race[data-status=open]")
    other.click("#race-join")
    wait_racer(host, other_name)
    screenshot(host, "race-room-360x640")
    assert host.evaluate("() => document.documentElement.scrollWidth <= 360")

    # Keyboard: every control of the host's room is a Tab stop.
    host.focus("#race-url")
    reached = set()
    for _ in range(12):
        host.keyboard.press("Tab")
        reached.add(host.evaluate("() => document.activeElement.id"))
    assert {
        "race-copy",
        "race-start",
        "race-leave",
        "race-invite-name",
        "race-invite-send",
    } <= reached
    host.focus("#race-start")
    host.keyboard.press("Enter")  # started by keyboard

    for page in (host, other):
        on_board(page)
        wait_started(page)
    screenshot(host, "race-board-360x640")
    strip = host.locator("#race-strip").bounding_box()
    board = host.locator("#board-wrap").bounding_box()
    assert strip and board
    assert strip["y"] + strip["height"] <= board["y"] + 1, (strip, board)  # never over the board
    assert strip["x"] >= 0 and strip["x"] + strip["width"] <= 360
    assert host.evaluate("() => document.documentElement.scrollWidth <= 360")


@pytest.mark.parametrize(("width", "height"), [(360, 640), (1366, 768)])
def test_every_race_page_passes_axe_and_fits(new_page, width, height):
    """axe-core (as test_a11y scans every page) finds no serious or critical
    violation on the room, the racer's board, the spectator's race and the
    standings, and none is wider than the screen."""
    host, racer, spectator = (new_page(width, height) for _ in range(3))
    for page in (host, racer, spectator):
        sign_up(page)
    found: dict[str, list[str]] = {}

    def scan(page: Any, label: str) -> None:
        page.wait_for_function("() => document.fonts.status === 'loaded'")
        screenshot(page, f"race-axe-{label}-{width}x{height}")
        problems = violations(page)
        if wide := page.evaluate(WIDEST):
            problems.append(f"wider than the screen: {wide}")
        if problems:
            found[label] = problems

    race = open_room(host)
    racer_name = join_and_name(racer, race)
    wait_racer(host, racer_name)
    scan(host, "room-host")
    spectator.goto(f"/race/{race}/")
    spectator.wait_for_selector("#race[data-status=open]")
    scan(spectator, "room-visitor")
    host_attempt, racer_attempt = start_race(host, [host, racer])
    spectator.wait_for_selector("#race[data-status=running]")
    spectator.click(f'[data-follow="{racer_name}"]')
    spectator.wait_for_selector("#race-follow .foundation-bars li")
    scan(spectator, "spectator-running")
    scan(racer, "racer-board")
    for page, attempt in ((host, host_attempt), (racer, racer_attempt)):
        api(page, "POST", f"/api/games/{attempt}/resign/", {})
    racer.wait_for_selector("#race-end", state="visible", timeout=20_000)
    scan(racer, "racer-standings")
    spectator.wait_for_selector("#racers.standings li[data-place]", timeout=20_000)
    scan(spectator, "spectator-standings")
    assert not found, "\n".join(
        f"{label}: {line}" for label, lines in found.items() for line in lines
    )


def join_and_name(page: Any, race: str) -> str:
    join(page, race)
    return page.evaluate("() => document.body.dataset.username")


@pytest.mark.parametrize(
    ("width", "height"), [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]
)
def test_a_signed_out_friends_first_tap_on_join_joins(new_page, width, height):
    """Issue 39: the Join button was read from the click event after an await
    (a guest made first), when the event no longer has it: a TypeError, and only
    the second tap joined. And the guest showed as ``guest-<hex>``: "Guest 1"."""
    host = new_page()
    sign_up(host)
    race = open_room(host)
    friend = new_page(width=width, height=height)
    watched = Watched(friend)
    friend.goto(f"/race/{race}/")
    friend.wait_for_selector("#race[data-status=open]")
    friend.click("#race-join")  # once
    friend.wait_for_selector("#race-join", state="hidden", timeout=10_000)
    host.wait_for_function("() => document.querySelectorAll('li[data-player]').length === 2")
    watched.assert_clean()
    for page in (host, friend):  # a guest by its number in the room, not its made-up name
        names = page.locator("li[data-player] .racer-name").all_inner_texts()
        assert "Guest 1" in names and not any("guest-" in n for n in names), names


CUT_FIGURES = """() => [...document.querySelectorAll('#race-chips li')].flatMap((chip) => {
  const box = chip.getBoundingClientRect();
  return [...chip.querySelectorAll('.racer-figures > span')]
    .filter((f) => f.getBoundingClientRect().right > box.right + 0.5
      || f.scrollWidth > f.clientWidth + 1)
    .map((f) => f.textContent);
})"""
"""The figures of the racers' chips that do not show whole."""


def test_a_racers_board_is_the_race_and_a_later_finish_is_no_win(new_page):
    """Issue 39: the racer's board said "Practice" and offered New game while the
    race ran, and a racer who cleared the deal second was told "You won!". One
    race of six: the host finishes first, then five racers, one at each of the
    five sizes, each told their place."""
    from tests.support.search import find_win

    line = [a.to_json() for a in find_win(WIN_CODE) or []]
    sizes = [(360, 640), (390, 844), (640, 360), (844, 390), (1280, 800)]
    host = new_page()
    sign_up(host)
    racers = [new_page(width=w, height=h) for w, h in sizes]
    for page in racers:
        sign_up(page)
    race = open_room(host)
    for page in racers:
        join(page, race)
    host_attempt, *attempts = start_race(host, [host, *racers])
    for page in racers:
        title = page.inner_text("#game-title")
        assert "Race" in title and "Practice" not in title, title
        assert page.locator("#new-game").is_hidden()  # no way out by a new game
    post_actions(host, host_attempt, 0, line)  # the host finishes first
    host.wait_for_selector("#win", state="visible", timeout=20_000)
    assert host.inner_text("#win-title").strip() == "You won the race!"
    hosts = host.evaluate("() => document.body.dataset.username")
    for page in racers:  # live, no reload: each figure of a chip says what it counts, whole
        chip = page.locator(f'#race-chips li[data-player="{hosts}"][data-home="52"]')
        chip.wait_for(timeout=20_000)
        figures = chip.locator(".racer-figures").inner_text()
        assert "52/52 home" in figures and f"{len(line)} moves" in figures, figures
        cut = page.evaluate(CUT_FIGURES)
        assert not cut, (page.viewport_size, cut)
    for place, (page, attempt) in enumerate(zip(racers, attempts, strict=True), start=2):
        post_actions(page, attempt, 0, line)  # then each clears the deal in turn
        page.wait_for_selector("#win", state="visible", timeout=20_000)
        ordinal = {2: "2nd", 3: "3rd"}.get(place, f"{place}th")
        assert page.inner_text("#win-title").strip() == f"You finished {ordinal} of 6"
    racers[-1].click("#win-close")
    racers[-1].wait_for_selector("#new-game", state="visible", timeout=20_000)  # it is over
