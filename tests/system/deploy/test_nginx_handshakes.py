"""nginx refuses a storm of websocket handshakes from one session before a daphne
sees it (issue 38; ``deploy/nginx.conf``): one account reconnecting in a loop cost
a daphne a handshake each — its HTTP parse, a session read, a Redis round trip —
and held its event loop, so other players waited 0.6–1.6 s for their acks
(``make bench-flood --reconnect 0.2``). A session opens 30 sockets at once, then
2 a second; over that, 429 at the door. Another player's socket still opens."""

from __future__ import annotations

from websockets.exceptions import InvalidStatus
from websockets.sync.client import connect

from deploy.client import Client
from tests.support.api import requires_postgres, requires_redis
from tests.support.nginx import requires_nginx
from tests.support.stack import throwaway_stack

pytestmark = [
    requires_postgres,
    requires_redis,
    requires_nginx,
]

PASSWORD = "correct horse battery staple"
BURST = 30  # deploy/nginx.conf: limit_req zone=ws_session burst=30
TRIES = 150
"""Enough that refusals come on a slow machine: the 2-a-second rate refills while
each let-through socket opens, so at 200 ms a socket the burst and its refills would
let about 50 through (by the arithmetic; a refused try costs nginx a few ms)."""


def _open(port: int, game_id: int, client: Client) -> int:
    """One socket on the game through the door at ``port``, closed once it says
    anything: 101 when it opened, else the HTTP status of the refusal."""
    try:
        with connect(
            f"ws://127.0.0.1:{port}/ws/games/{game_id}/",
            origin=f"http://127.0.0.1:{port}",  # type: ignore[arg-type]
            additional_headers={"Cookie": f"sessionid={client.cookies['sessionid']}"},
            open_timeout=30,
        ) as ws:
            ws.recv(timeout=30)
            return 101
    except InvalidStatus as refused:
        return refused.response.status_code


def _player(port: int, name: str) -> tuple[Client, int]:
    client = Client(port)
    client.sign_up(name, PASSWORD)
    game = client.expect("POST", "/api/games/", {"code": "EH1-N-AAAAAJ2"}, 201)
    return client, int(game["id"])


def test_a_sessions_storm_of_handshakes_is_refused_at_nginx_and_others_still_connect() -> None:
    with throwaway_stack("nginxws", daphnes=1, worker=False, beat=False, nginx=True) as stack:
        port = stack.nginx_port
        assert port is not None
        flooder, flooders_game = _player(port, "flooder")
        other, others_game = _player(port, "other")

        statuses = [_open(port, flooders_game, flooder) for _ in range(TRIES)]

        opened, refused = statuses.count(101), statuses.count(429)
        assert opened + refused == TRIES, statuses
        # The burst, and the 2 a second that refill while the tries run.
        assert BURST <= opened < TRIES, statuses
        assert refused >= 5, statuses
        # The burst opens whole: a page's sockets, a phone's reconnects.
        assert statuses[:BURST] == [101] * BURST, statuses
        # Another session is not the flooder's: its socket opens at once.
        assert _open(port, others_game, other) == 101
        # Plain requests are not counted against the sockets' limit.
        flooder.expect("GET", f"/api/games/{flooders_game}/")
