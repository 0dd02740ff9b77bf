"""A page whose game socket is refused for one socket too many (close 4429,
issue 25: ``WS_MAX_PER_PLAYER``) comes back slowly, at the client's longest
backoff, not every half second — where its own retries would be the flood the
cap is there to stop — and is live again once a place is free."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlparse

from websockets.sync.client import connect

from tests.support.browser import sign_up, start_practice
from tests.support.players import close_quietly

CAP = 16  # WS_MAX_PER_PLAYER's default (config/settings.py)


def own_sockets(site: str, page: Any, path: str, count: int) -> list[Any]:
    """``count`` sockets of the page's player at ``path``, from the site's origin."""
    cookies = "; ".join(f"{c['name']}={c['value']}" for c in page.context.cookies())
    host = urlparse(site).netloc
    return [
        connect(
            f"ws://{host}{path}",
            origin=site,  # type: ignore[arg-type]
            additional_headers={"Cookie": cookies},
            proxy=None,
            open_timeout=10,
            close_timeout=1,
        )
        for _ in range(count)
    ]


def test_a_refused_page_comes_back_slowly_and_once_there_is_room(new_page, site):
    page = new_page(390, 844)
    sign_up(page)
    attempt = start_practice(page, "SH1-C4-AAAAAAE")
    path = f"/ws/games/{attempt}/"
    page.goto("/")  # the play page's socket closed
    others = own_sockets(site, page, path, CAP)
    try:
        opened: list[float] = []
        page.on("websocket", lambda ws: path in ws.url and opened.append(time.monotonic()))
        page.goto(f"/play/{attempt}/")
        page.wait_for_selector("#connection[data-state=offline]", timeout=10_000)
        page.wait_for_timeout(6_000)
        # Before: 0.5 s, 1 s, 2 s, 4 s apart — five sockets in these seconds.
        assert len(opened) <= 2, f"{len(opened)} sockets in 6 s after a 4429"
        close_quietly(others.pop())
        page.wait_for_selector("#connection[data-state=open]", timeout=30_000)
    finally:
        for ws in others:
            close_quietly(ws)
