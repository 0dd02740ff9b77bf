"""Every page, at every screen size of issue 15, scanned with axe-core (the
engine axe-playwright-python ships, injected into the page under test): no
serious or critical violation, and no page wider than the screen. Each page at
each size is kept as a screenshot in ``$BROWSER_ARTIFACTS/sizes/`` (default
``.artifacts/browser/sizes/``), the pictures a person looks at before a release
and CI keeps as artifacts. The dark theme (as the system's preference) is
scanned at a phone size and a desk size.

Pages are scanned as they are used: signed in, with a game being played, a
game watched by a second account, a finished game's replay, yesterday's
revealed deals and today's sealed ones, the leaderboard with a result on it.
"""

from __future__ import annotations

import datetime as dt
import secrets
from typing import Any

import pytest

from games.engine import Move, new_game
from tests.support.a11y import WIDEST, violations
from tests.support.browser import ARTIFACTS, api, sign_up

SIZES = [(360, 640), (390, 844), (640, 360), (844, 390), (1366, 768)]
# Light at every size; the dark theme (the system's preference) at a phone and a desk.
RUNS = [(w, h, "light") for w, h in SIZES] + [(360, 640, "dark"), (1366, 768, "dark")]
SEAHAVEN = "SH1-C4-AAAAAJ2"
EASY_HARP = "EH1-N-AAAAAAF"


def played(page: Any, code: str, moves: int) -> int:
    """A practice game on ``code`` with its first ``moves`` legal moves played."""
    attempt = api(page, "POST", "/api/games/", {"code": code})["id"]
    game = new_game(code)
    for seq in range(moves):
        move = next(m for m in game.legal_moves if isinstance(m, Move)).to_json()
        api(page, "POST", f"/api/games/{attempt}/actions/", {"seq": seq, "action": move})
        game.apply_json(move)
    return attempt


def settled(page: Any, path: str) -> None:
    """``path`` loaded, its data fetched and drawn (nothing busy, the fonts in)."""
    page.goto(path)
    page.wait_for_load_state("networkidle")
    page.wait_for_function(
        "() => !document.querySelector('[aria-busy=true]') && document.fonts.status === 'loaded'"
    )


@pytest.mark.parametrize(
    ("width", "height", "scheme"), RUNS, ids=[f"{w}x{h}-{s}" for w, h, s in RUNS]
)
def test_every_page_passes_axe_at_every_size(new_page, server, width, height, scheme):
    player, watcher = new_page(width, height), new_page(width, height)
    anonymous = new_page(width, height)
    for page in (player, watcher, anonymous):
        page.emulate_media(color_scheme=scheme)
    name = sign_up(player)
    sign_up(watcher)
    live = played(player, SEAHAVEN, 3)
    finished = played(player, EASY_HARP, 4)
    api(player, "POST", f"/api/games/{finished}/resign/")
    yesterday = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    club = api(player, "POST", "/api/clubs/", {"name": f"Axe {secrets.token_hex(4)}"})["slug"]
    pages = [
        (anonymous, "lobby-signed-out", "/"),
        (anonymous, "signup", "/signup/"),
        (anonymous, "login", "/login/"),
        (anonymous, "rules", "/rules/"),
        (player, "lobby", "/"),
        (player, "play-seahaven", f"/play/{live}/"),
        (player, "play-easy-harp-over", f"/play/{finished}/"),
        (player, "replay", f"/replay/{finished}/"),
        (watcher, "watch", f"/watch/{live}/"),
        (watcher, "live", "/live/"),
        (player, "leaderboard", "/leaderboard/"),
        (player, "daily-today", "/daily/"),
        (anonymous, "daily-yesterday", f"/daily/{yesterday}/"),
        (anonymous, "player", f"/players/{name}/"),
        (player, "archive", "/archive/"),
        (anonymous, "archive-signed-out", "/archive/"),
        (anonymous, "not-found", "/players/nobody-has-this-name/"),
        (player, "clubs", "/clubs/"),  # issue 29
        (player, "club", f"/clubs/{club}/"),
        (watcher, "club-outside", f"/clubs/{club}/"),
        (player, "player-club-ranks", f"/players/{name}/?club={club}"),  # Ranks among
    ]
    found: dict[str, list[str]] = {}
    folder = ARTIFACTS / "sizes"
    folder.mkdir(parents=True, exist_ok=True)
    for page, label, path in pages:
        settled(page, path)
        suffix = "" if scheme == "light" else f"-{scheme}"
        page.screenshot(path=str(folder / f"{label}-{width}x{height}{suffix}.png"))
        problems = violations(page)
        if wide := page.evaluate(WIDEST):  # a page never scrolls sideways
            problems.append(f"wider than the screen: {wide}")
        if problems:
            found[label] = problems
    assert not found, "\n".join(
        f"{label}: {line}" for label, lines in found.items() for line in lines
    )
