"""Driving the pages in real Chromium (Playwright): sign up, start and play games,
read the board from the DOM hooks of ``frontend/static/frontend/js/board.js``
(``.pile[data-pile]``, ``.card[data-card][data-index]``, ``#moves``, …), call the
API from the page's own session, and keep screenshots; and the live server the
pages are served by (``Server``: code run in its settings and database)."""

from __future__ import annotations

import datetime as dt
import json
import os
import re
import secrets
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlparse

from games.engine import Game, Move, Stock, new_game

ROOT = Path(__file__).resolve().parents[2]
ARTIFACTS = Path(os.environ.get("BROWSER_ARTIFACTS", ROOT / ".artifacts" / "browser"))


@dataclass(frozen=True)
class Server:
    """The live daphne the pages are served by (started by the browser tests'
    conftest): its URL and the environment its processes run with."""

    url: str
    env: dict[str, str]

    def python(self, code: str) -> Any:
        """Run ``code`` with the server's settings and database (``django.setup()``
        done) and return what it stores in ``result``, through JSON."""
        script = (
            "import json, django\ndjango.setup()\nresult = None\n"
            f"{code}\nprint('\\n' + json.dumps(result, default=str))"
        )
        done = subprocess.run(
            [sys.executable, "-c", script],
            check=False,
            cwd=ROOT,
            env=self.env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    def daily(self, variant: str, date: str | None = None) -> dict[str, Any]:
        """A daily deal as the server stored it: its secret ``code``, ``par``, ``proof``."""
        return self.python(
            "from games.dailies import daily_deal_get, utc_today\n"
            "import datetime as dt\n"
            f"day = dt.date.fromisoformat({date!r}) if {date!r} else utc_today()\n"
            f"d = daily_deal_get(date=day, variant={variant!r})\n"
            "result = {'code': d.deal.code, 'par': d.par, 'proof': d.proof}"
        )

    def legacy_daily_practice(self, username: str, variant: str) -> int:
        """A practice game of today's ``variant`` daily for ``username``, as the API
        dealt one before running dailies were closed to practice (issue 36; such
        games exist and keep the daily's rules), made by the service's own maker.
        Its id."""
        return self.python(
            "from accounts.models import User\n"
            "from games.dailies import daily_deal_get, utc_today\n"
            "from games.services import _create_attempt\n"
            f"d = daily_deal_get(date=utc_today(), variant={variant!r})\n"
            f"player = User.objects.get(username={username!r})\n"
            "result = _create_attempt(player=player, deal=d.deal, daily=d, ranked=False).pk"
        )


def screenshot(page, name: str) -> Path:
    """Keep a screenshot as a test artifact (look at them: layout bugs are bugs)."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path


API = """async (calls) => {
    const token = (document.cookie.match(/(?:^|; )csrftoken=([^;]*)/) || [])[1];
    const answers = [];
    for (const [method, path, body] of calls) {
        const r = await fetch(path, {method, credentials: "same-origin",
            headers: {"Content-Type": "application/json", "X-CSRFToken": token},
            body: body === null ? undefined : JSON.stringify(body)});
        const text = await r.text();
        let parsed = text;
        try { parsed = JSON.parse(text); } catch (e) { /* an HTML error page: as text */ }
        answers.push({status: r.status, body: parsed});
        if (!r.ok) break;
    }
    return answers;
}"""
"""JSON API calls from the page, in order (its session, its CSRF cookie), until
one is refused; each answer's status and body."""


def api(page: Any, method: str, path: str, body: object = None) -> Any:
    """A JSON API call from the page that must succeed; its body."""
    (answer,) = page.evaluate(API, [[method, path, body]])
    assert answer["status"] < 300, answer
    return answer["body"]


def post_actions(page: Any, attempt: int, seq: int, actions: list[Any]) -> int:
    """``actions`` applied to game ``attempt`` from ``seq`` on, from the page in one
    go (the page follows them over its websocket); returns the next ``seq``."""
    path = f"/api/games/{attempt}/actions/"
    calls = [["POST", path, {"seq": seq + n, "action": a}] for n, a in enumerate(actions)]
    answers = page.evaluate(API, calls)
    assert len(answers) == len(calls) and all(a["status"] < 300 for a in answers), answers[-1:]
    return seq + len(actions)


PASSWORD = "correct horse battery staple"


WIN_CODE = "SH1-C4-AAAAAJ2"


def sign_up(page: Any, name: str | None = None) -> str:
    name = name or f"p{secrets.token_hex(4)}"
    page.goto("/signup/")
    page.fill("input[name=username]", name)
    page.fill("input[name=password]", PASSWORD)
    page.click("form button[type=submit]")
    page.wait_for_url(lambda url: urlparse(url).path == "/")  # the lobby, signed in
    page.wait_for_selector("#deals[aria-busy=false]")
    return name


def board_piles(page: Any) -> dict[str, list[str | None]]:
    """The board as drawn: each pile's cards bottom to top (``None``: face down)."""
    return page.evaluate(
        """() => Object.fromEntries([...document.querySelectorAll('#board .pile[data-pile]')]
            .map(p => [p.dataset.pile, [...p.querySelectorAll('.card[data-card]')]
                .sort((a, b) => a.dataset.index - b.dataset.index)
                .map(c => c.dataset.card === 'down' ? null : c.dataset.card)]))"""
    )


def assert_board_is(page: Any, game: Game) -> None:
    """The board shows ``game``'s player view (drawn within a moment: the page
    renders on the next animation frame)."""
    # The stock is drawn as a heap (its count), never its cards.
    expected = {pile: cards for pile, cards in game.view()["piles"].items() if pile != "s"}
    deadline = time.monotonic() + 3
    while True:
        shown = board_piles(page)
        shown.pop("s", None)
        if shown == expected or time.monotonic() > deadline:
            break
        page.wait_for_timeout(50)
    assert shown == expected


def moves_shown(page: Any) -> int:
    return int(page.inner_text("#moves").strip() or 0)


def wait_moves(page: Any, n: int) -> None:
    page.wait_for_function(
        "n => parseInt(document.querySelector('#moves').textContent.trim() || '0') === n", arg=n
    )


def card_locator(page: Any, pile: str, index: int) -> Any:
    return page.locator(f'#board .pile[data-pile="{pile}"] .card[data-index="{index}"]')


def wait_still(page: Any) -> None:
    """Until no card of the board is moving (a card glides ≤ 150 ms to its new
    place, issue 15): a card is grabbed where it is drawn."""
    page.wait_for_function(
        """() => !document.getAnimations().some(a => a.playState === 'running'
            && a.effect && a.effect.target && a.effect.target.closest
            && a.effect.target.closest('#board'))"""
    )


def drag(page: Any, game: Game, move: Move) -> None:
    """Drag the card ``count`` from the top of ``move.source`` onto ``move.target``."""
    wait_still(page)
    index = len(game.piles[move.source]) - move.count
    card = card_locator(page, move.source, index).bounding_box()
    target = page.locator(f'#board .pile[data-pile="{move.target}"]').bounding_box()
    assert card and target, (move, card, target)
    x, y = card["x"] + card["width"] / 2, card["y"] + min(12, card["height"] / 2)
    page.mouse.move(x, y)
    page.mouse.down()
    page.mouse.move(x + 10, y + 10, steps=3)
    page.mouse.move(
        target["x"] + target["width"] / 2, target["y"] + min(30, target["height"] / 2), steps=8
    )
    page.mouse.up()


def play(page: Any, game: Game, action: Move | Stock) -> None:
    """Do ``action`` with the pointer and wait until the page shows it played."""
    before = game.moves
    if isinstance(action, Stock):
        page.click('#board .pile[data-pile="s"]')
    else:
        drag(page, game, action)
    game.apply(action)
    wait_moves(page, before + 1)


def refused_move(game: Game) -> Move:
    """A move between two columns the rules refuse in ``game``'s position."""
    return next(
        Move(src, dst)
        for src in game.columns
        for dst in game.columns
        if src != dst and game.piles[src] and game.piles[dst] and not game.is_legal(Move(src, dst))
    )


def open_daily(page: Any, variant: str) -> int:
    page.goto("/")
    page.wait_for_selector("#deals[aria-busy=false]")  # the lobby's own answer drawn
    page.click(f'.deal[data-variant="{variant}"] .deal-actions .primary')  # Play or Continue
    # A loaded CI machine took more than 10 s, then more than 30 s, to reach the play
    # page's "load" event: its URL is what says the game started, the board that it shows.
    try:
        page.wait_for_url(re.compile(r"/play/\d+/$"), timeout=30_000, wait_until="commit")
    except Exception as exc:
        said = page.inner_text("#lobby-error") if page.locator("#lobby-error").count() else ""
        raise AssertionError(f"no game started from the lobby: {said!r}") from exc
    page.wait_for_selector("#board .pile[data-pile=t1] .card", timeout=30_000)
    return int(page.url.rstrip("/").split("/")[-1])


def start_practice(page: Any, code: str) -> int:
    page.goto("/")
    page.click("#new-game")
    page.check("input[name=kind][value=code]")
    page.fill("#new-game-code", code)
    page.click("#new-game-start-code")
    page.wait_for_url(re.compile(r"/play/\d+/$"))
    page.wait_for_selector("#board .pile[data-pile=t1] .card")
    return int(page.url.rstrip("/").split("/")[-1])


def shown_code(page: Any) -> str:
    return page.inner_text("#code").strip()


def daily_game(page: Any, server: Any, variant: str) -> Game:
    """Today's daily deal just opened on ``page``, from the server's database: its
    code is secret while the day runs, so the page shows the day instead."""
    code = server.daily(variant)["code"]
    assert code not in page.content()
    assert shown_code(page) == f"Daily · {dt.datetime.now(dt.UTC).date().isoformat()}"
    return new_game(code)


def settle(page: Any) -> None:
    """The board lays itself out again after a resize (a ResizeObserver)."""
    page.wait_for_timeout(250)
    page.wait_for_selector("#board .pile[data-pile=t1] .card")


def resign(page: Any) -> None:
    page.once("dialog", lambda dialog: dialog.accept())
    page.click("#resign")
    page.wait_for_selector("#notice[data-kind=info]")


EASY_HARP = "EH1-N-AAAAAAF"
