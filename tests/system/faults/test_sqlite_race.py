"""The embedded default (``make run``: SQLite, no Redis) under a race of the same
action: ten requests with one ``seq`` at once, on a real daphne. Each is
answered 200 (applied, or the same result again) or 409, never 5xx, and the
game moves by exactly one action (issue 17: before, one in ten answered 503,
SQLite's "database is locked" when two transactions that had read both tried to
write)."""

from __future__ import annotations

import threading
from pathlib import Path

from deploy.client import Answer, Client
from games.engine import Move, new_game
from tests.support.daphne import sqlite_daphne

RACERS = 10
ROUNDS = 5
CODE = "SH1-C4-AAAAAJ2"


def race(clients: list[Client], path: str, body: object) -> list[Answer]:
    """``body`` POSTed to ``path`` by every client at once (released together)."""
    answers: list[Answer] = []
    start = threading.Barrier(len(clients))

    def send(client: Client) -> None:
        start.wait()
        answers.append(client.request("POST", path, body))

    threads = [threading.Thread(target=send, args=(client,)) for client in clients]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return answers


def test_sqlite_serialises_a_race_of_the_same_action(tmp_path: Path) -> None:
    with sqlite_daphne(
        tmp_path, REGISTER_RATE="1000/min", ACTION_RATE="10000/min", LOG_LEVEL="WARNING"
    ) as (port, log):
        player = Client(port)
        player.sign_up("racer", "a long passphrase")
        attempt = player.expect("POST", "/api/games/", {"code": CODE}, status=201)["id"]
        # Every racer its own connection, the player's session (one cookie jar).
        racers = [player.at(port) for _ in range(RACERS)]
        game = new_game(CODE)
        for seq in range(ROUNDS):
            move = next(m for m in game.legal_moves if isinstance(m, Move)).to_json()
            answers = race(racers, f"/api/games/{attempt}/actions/", {"seq": seq, "action": move})
            statuses = sorted(a.status for a in answers)
            assert len(statuses) == RACERS
            assert set(statuses) <= {200, 409}, (seq, statuses, log.read_text()[-3000:])
            assert player.expect("GET", f"/api/games/{attempt}/")["seq"] == seq + 1
            game.apply_json(move)
        for client in racers:
            client.close()
