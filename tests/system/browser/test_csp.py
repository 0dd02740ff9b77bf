"""Every page works under the Content-Security-Policy (issue 17): a real Chromium
goes through the whole site — signed out and in, the lobby and its dialogs, both
games played by drag, tap and double tap to a win, a game watched live over its
websocket, the replay, the leaderboard, the daily pages, the archive, a player,
the admin, the 404 page — and no page reports a violation, to a listener on the
document (``securitypolicyviolation``) or to the report endpoint, and no page
logs a script error. Then the other side: the policy really blocks an inline
script slipped into a page, and the browser reports it to the endpoint."""

from __future__ import annotations

import datetime as dt
from typing import Any

from games.engine import Move, new_game, solve
from tests.support.browser import (
    api,
    card_locator,
    play,
    post_actions,
    screenshot,
    sign_up,
    start_practice,
    wait_moves,
    wait_still,
)
from tests.support.csp import REPORT, Watched

WIN_CODE = "SH1-C4-AAAAAJ2"
EASY_HARP = "EH1-N-AAAAAAF"


def watched(new_page: Any, *args: Any) -> Watched:
    return Watched(new_page(*args))


def socket_opens(page: Any, path: str) -> bool:
    """A websocket to ``path`` on the page's own origin opens (``connect-src
    'self'`` must cover ws: of the same host and port)."""
    return page.evaluate(
        """(path) => new Promise((done) => {
            const ws = new WebSocket(location.origin.replace(/^http/, "ws") + path);
            ws.onopen = () => { ws.close(); done(true); };
            ws.onerror = () => done(false);
        })""",
        path,
    )


def test_every_page_works_under_the_policy_and_reports_nothing(new_page, server):
    anonymous, player, watcher = (watched(new_page) for _ in range(3))
    for path in ("/", "/signup/", "/login/", "/rules/", "/live/", "/archive/", "/daily/"):
        anonymous.visit(path)
    anonymous.visit("/no-such-page/", "#not-found")
    yesterday = (dt.datetime.now(dt.UTC).date() - dt.timedelta(days=1)).isoformat()
    anonymous.visit(f"/daily/{yesterday}/")

    name = sign_up(player.page)
    sign_up(watcher.page)
    page = player.page
    # The lobby's dialogs: settings (a setting changed and put back) and New game.
    page.click("#settings-open")
    page.wait_for_selector("#settings-dialog[open]")
    page.click("#settings-close")
    page.click("#new-game")
    page.wait_for_selector("dialog[open]")
    page.keyboard.press("Escape")

    # Seahaven, played by drag and double tap to a win while a second player watches.
    attempt = start_practice(page, WIN_CODE)
    assert socket_opens(page, f"/ws/games/{attempt}/")
    game = new_game(WIN_CODE)
    line = solve(game.copy()).line
    watcher.visit(f"/watch/{attempt}/", "#board .pile[data-pile=t1] .card")
    first = next(i for i, a in enumerate(line) if isinstance(a, Move))
    seq = post_actions(page, attempt, 0, [a.to_json() for a in line[:first]])
    for action in line[:first]:
        game.apply(action)
    wait_moves(page, game.moves)
    play(page, game, line[first])  # a drag
    wait_moves(watcher.page, game.moves)  # pushed to the watcher over its websocket
    seq += 1
    rest = line[first + 1 :]
    seq = post_actions(page, attempt, seq, [a.to_json() for a in rest[:-1]])
    for action in rest[:-1]:
        game.apply(action)
    wait_moves(page, game.moves)
    last = rest[-1]
    if isinstance(last, Move):
        play(page, game, last)  # the winning drag: the cascade and the result card
    else:
        post_actions(page, attempt, seq, [last.to_json()])
    page.wait_for_selector("#win[open]")
    screenshot(page, "csp-win")
    wait_moves(watcher.page, len(line))

    # Easy Harp: the stock tapped, a card double-tapped.
    harp = start_practice(page, EASY_HARP)
    harp_game = new_game(EASY_HARP)
    play(page, harp_game, next(a for a in harp_game.legal_moves if not isinstance(a, Move)))
    pile = next(p for p in harp_game.columns if harp_game.piles[p])
    wait_still(page)
    card_locator(page, pile, len(harp_game.piles[pile]) - 1).dblclick()
    page.wait_for_load_state("networkidle")
    api(page, "POST", f"/api/games/{harp}/resign/")

    player.visit(f"/replay/{attempt}/", "#board .pile[data-pile=t1] .card")
    page.keyboard.press("ArrowLeft")
    page.keyboard.press("ArrowRight")
    for path in (
        "/",
        "/leaderboard/",
        "/daily/",
        f"/daily/{yesterday}/",
        "/archive/",
        f"/players/{name}/",
        "/live/",
    ):
        player.visit(path)

    # The admin, signed in as staff.
    server.python(
        "from accounts.models import User\n"
        "User.objects.create_superuser('csp-boss', password='csp-boss-password-1')"
    )
    staff = watched(new_page)
    admin = "/" + server.python("from django.conf import settings\nresult = settings.ADMIN_PATH")
    staff.visit(f"{admin}login/", "#login-form")
    staff.page.fill("#id_username", "csp-boss")
    staff.page.fill("#id_password", "csp-boss-password-1")
    with staff.page.expect_navigation():
        staff.page.click("input[type=submit]")
    staff.visit(admin, "#content")
    staff.visit(f"{admin}games/attempt/", "#changelist")
    staff.visit(f"{admin}games/attempt/{attempt}/change/", "#content")
    staff.visit(f"{admin}accounts/user/", "#changelist")

    for each in (anonymous, player, watcher, staff):
        each.assert_clean()


def test_the_policy_blocks_an_inline_script_and_reports_it(new_page):
    watch = watched(new_page)
    watch.visit("/rules/")
    with watch.page.expect_response(lambda r: r.url.endswith(REPORT)) as sent:
        ran = watch.page.evaluate(
            """() => {
                window.injected = false;
                const script = document.createElement("script");
                script.textContent = "window.injected = true";
                document.body.append(script);
                const el = document.createElement("p");
                el.setAttribute("style", "color: red");
                document.body.append(el);
                return window.injected;
            }"""
        )
    assert ran is False  # the inline script never ran
    assert sent.value.status == 204
    seen = watch.page.wait_for_function("() => window.cspSeen.length >= 2 && window.cspSeen")
    assert set(seen.json_value()) == {"script-src-elem", "style-src-attr"}
    assert watch.reports, "no report reached the endpoint"
    # The inline style attribute was refused too: the paragraph keeps its colour.
    colour = watch.page.evaluate("() => getComputedStyle(document.body.lastChild).color")
    assert colour != "rgb(255, 0, 0)"
