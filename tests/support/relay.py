"""The page's game sockets through Playwright's websocket routing (``Relay``):
every frame passes unchanged to the real server and back, except the ones a
test holds back for a moment (an ``ack``: the server is slow) or loses (a
``state`` broadcast: best effort, games/websocket.md). So a browser test can
look at the board while the server's answer is still on its way —
deterministically, with no timing — and check it against our engine afterwards
(``tests/system/browser/test_landing.py``, ``test_easy_harp_instant.py``)."""

from __future__ import annotations

import json
import re
from typing import Any

from games.engine import Game, new_game
from tests.support.browser import board_piles, sign_up, start_practice

GAME_SOCKET = re.compile(r"/ws/games/\d+/$")


class Relay:
    """The page's game sockets, through to the real server. ``hold``: the types
    of server frames kept back until ``release()``; ``drop``: the types lost;
    ``lose_actions``: the page's actions are lost on their way (a link going
    down). ``cut()`` closes the page's sockets (it connects again)."""

    def __init__(self, page: Any) -> None:
        self.sent: list[dict[str, Any]] = []
        self.hold: set[str] = set()
        self.drop: set[str] = set()
        self.lose_actions = False
        self.held: list[tuple[Any, str]] = []
        self.sockets: list[Any] = []
        page.route_web_socket(GAME_SOCKET, self.route)

    def route(self, ws: Any) -> None:
        server = ws.connect_to_server()
        self.sockets.append(ws)

        def upstream(message: str | bytes) -> None:
            frame = json.loads(message)
            self.sent.append(frame)
            if self.lose_actions and "action" in frame:
                return
            server.send(message)

        def downstream(message: str | bytes) -> None:
            kind = json.loads(message).get("type")
            if kind in self.drop:
                return
            if kind in self.hold:
                self.held.append((ws, message))
                return
            ws.send(message)

        ws.on_message(upstream)
        server.on_message(downstream)

    def actions(self) -> list[dict[str, Any]]:
        return [f["action"] for f in self.sent if "action" in f]

    def cut(self) -> None:
        sockets, self.sockets = self.sockets, []
        for ws in sockets:
            ws.close(code=4000, reason="cut")

    def release_one(self) -> None:
        """Let the first frame held through; the rest stay held, and so do later ones."""
        if self.held:
            ws, message = self.held.pop(0)
            ws.send(message)

    def release(self) -> None:
        self.hold = set()
        held, self.held = self.held, []
        for ws, message in held:
            ws.send(message)


def relayed_practice(new_page: Any, code: str, **size: int) -> tuple[Any, Relay, int, Game]:
    """A new player's page (of ``size``: ``width``, ``height``) on a practice game
    of ``code``, its socket through a ``Relay``: the page, the relay, the
    attempt's id and the engine's game. Returned once the game's socket is open:
    an action made before goes by HTTP (feed.js), past the relay."""
    page = new_page(**size)
    relay = Relay(page)
    sign_up(page)
    attempt = start_practice(page, code)
    page.wait_for_selector("#connection[data-state=open]")
    return page, relay, attempt, new_game(code)


def wait_held(page: Any, relay: Relay, kind: str) -> None:
    """Until the server's ``kind`` answer reached the relay (and was held)."""
    for _ in range(200):
        if any(json.loads(m).get("type") == kind for _, m in relay.held):
            return
        page.wait_for_timeout(25)
    raise AssertionError(f"no {kind} came: {relay.sent}")


# A tap, dispatched as the browser would (pointerdown, pointerup on the card),
# and what the page shows right after it, in the same task: no answer can have
# come from the server yet.
TAP_NOW = """([pile, index]) => {
    const card = document.querySelector(
        `#board .pile[data-pile="${pile}"] .card[data-index="${index}"]`);
    const box = card.getBoundingClientRect();
    const at = {bubbles: true, cancelable: true, pointerId: 7, pointerType: "mouse", button: 0,
                clientX: box.left + box.width / 2, clientY: box.top + 8, isPrimary: true};
    card.dispatchEvent(new PointerEvent("pointerdown", at));
    card.dispatchEvent(new PointerEvent("pointerup", at));
    const board = document.getElementById("board");
    return {waiting: board.classList.contains("waiting"),
            piles: Object.fromEntries(Object.entries(board.board.view.piles))};
}"""


def shown_now(page: Any, pile: str) -> list[str | None]:
    return board_piles(page)[pile]


RECORD_SHAKES = """() => {
    window.__shakes = [];
    new MutationObserver((records) => {
        for (const r of records)
            if (r.target.classList.contains("refused"))
                window.__shakes.push(r.target.dataset.pile || "board");
    }).observe(document.getElementById("board"),
               {attributes: true, attributeFilter: ["class"], subtree: true});
}"""
