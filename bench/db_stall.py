"""Answer times during a database stall behind PgBouncer (a benchmark, not a test).

    python bench/db_stall.py [--pause 30] [--players 6]      # or: make bench-stall

The production process set of ``deploy/stack.py --pgbouncer`` on this machine
(a fresh database of its own, a Redis and a PgBouncer of its own, one daphne;
no worker, no beat). ``--players`` clients sign up, start practice games and
play over HTTP, one action in flight each, a ``503`` retried with the same
``seq`` after a second. Once they are playing, the stack's PgBouncer is paused
(its admin console's ``PAUSE``: the connections stay up, every query is held
in PgBouncer) for ``--pause`` seconds, then resumed. Meanwhile ``/readyz`` is
asked every second and a game socket is opened every two.

Printed: for what was *in flight during the pause* (sent before ``RESUME``,
answered after ``PAUSE``) — the players' requests, the ``/readyz`` probes, the
socket openings — how many, p50 and max of the time to an answer, and the
answers (status, or what the socket said); then the
seconds from ``RESUME`` to ``/readyz`` 200. Before issue 25 every one of them
was held until ``RESUME`` (and ``/readyz`` said 200); after it they are
answered 503 (4503 for a socket) within a few seconds.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import random
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psycopg
from websockets.exceptions import ConnectionClosed, InvalidHandshake
from websockets.sync.client import connect
from websockets.typing import Origin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from bench.api import choose_action
from bench.measure import machine, percentile
from deploy.client import Client
from deploy.stack import Stack

Sample = tuple[float, float, str]  # (sent at, seconds to the answer, the answer)


class Run:
    def __init__(self, stack: Stack, players: int, pause: float) -> None:
        self.stack, self.port, self.pause = stack, stack.ports[0], pause
        self.count = players
        self.wait = pause + 30  # a held request is measured, not cut
        self.stop = threading.Event()
        self.samples: dict[str, list[Sample]] = collections.defaultdict(list)
        self.lock = threading.Lock()
        self.games: list[tuple[Client, dict[str, Any]]] = []

    def record(self, kind: str, sent: float, answer: str) -> None:
        with self.lock:
            self.samples[kind].append((sent, time.monotonic() - sent, answer))

    def sign_up(self) -> None:
        for n in range(self.count):
            client = Client(self.port, timeout=self.wait, keep_alive=False)
            client.sign_up(f"stall{n}_{os.getpid()}", "bench horse battery staple")
            game = client.expect("POST", "/api/games/", {"random": "EH1-N", "any": True}, 201)
            self.games.append((client, game))

    def play(self, n: int) -> None:
        client, game = self.games[n]
        rng = random.Random(n)
        while not self.stop.is_set():
            action = choose_action(game, rng)
            if action is None or game["status"] != "playing":
                game = client.expect("POST", "/api/games/", {"random": "EH1-N", "any": True}, 201)
                continue
            path = f"/api/games/{game['id']}/actions/"
            while not self.stop.is_set():
                sent = time.monotonic()
                answer = client.request("POST", path, {"seq": game["seq"], "action": action})
                self.record("action", sent, str(answer.status))
                if answer.status != 503:
                    break
                time.sleep(1)  # the same seq again
            if answer.status == 200:
                game = answer.body

    def probe(self) -> None:
        client = Client(self.port, timeout=self.wait, keep_alive=False)
        while not self.stop.is_set():
            sent = time.monotonic()
            self.record("/readyz", sent, str(client.request("GET", "/readyz").status))
            time.sleep(max(0.0, 1 - (time.monotonic() - sent)))

    def open_sockets(self) -> None:
        client, game = self.games[0]
        while not self.stop.is_set():
            sent = time.monotonic()
            self.record("socket", sent, self.open_socket(client, game["id"]))
            time.sleep(max(0.0, 2 - (time.monotonic() - sent)))

    def open_socket(self, client: Client, attempt_id: int) -> str:
        try:
            with connect(
                f"ws://127.0.0.1:{self.port}/ws/games/{attempt_id}/",
                origin=Origin(f"http://127.0.0.1:{self.port}"),
                additional_headers={"Cookie": f"sessionid={client.cookies['sessionid']}"},
                open_timeout=self.wait,
                close_timeout=1,
            ) as ws:
                first = json.loads(ws.recv(timeout=self.wait))
                if first["type"] == "snapshot":
                    return "snapshot"
                ws.recv(timeout=self.wait)
        except ConnectionClosed as closed:
            return f"closed {closed.rcvd.code if closed.rcvd else '?'}"
        except (InvalidHandshake, OSError, TimeoutError) as exc:
            return f"no handshake ({type(exc).__name__})"
        return "open"

    def console(self, command: str) -> None:
        url = f"postgresql://postgres@127.0.0.1:{self.stack.pgbouncer_port}/pgbouncer"
        with psycopg.connect(url, autocommit=True, connect_timeout=5) as conn:
            conn.execute(command)

    def run(self) -> None:
        self.sign_up()
        threads = [threading.Thread(target=self.play, args=(n,)) for n in range(self.count)]
        threads += [threading.Thread(target=self.probe), threading.Thread(target=self.open_sockets)]
        for thread in threads:
            thread.start()
        try:
            time.sleep(3)  # playing
            self.console(f"PAUSE {self.stack.database}")
            started = time.monotonic()
            time.sleep(self.pause)
            self.console(f"RESUME {self.stack.database}")
            ended = time.monotonic()
            ready = self.ready_after(ended)
            time.sleep(3)
        finally:
            self.stop.set()
            for thread in threads:
                thread.join()
        self.report(started, ended, ready)

    def ready_after(self, resumed: float) -> float | None:
        client = Client(self.port, timeout=self.wait, keep_alive=False)
        while time.monotonic() - resumed < 60:
            if client.request("GET", "/readyz").status == 200:
                return time.monotonic() - resumed
            time.sleep(0.1)
        return None

    def report(self, started: float, ended: float, ready: float | None) -> None:
        print(f"machine: {machine()}")
        print(f"PgBouncer PAUSE of {ended - started:.1f} s; {self.count} players over HTTP")
        print(f"{'in flight in the pause':<22} {'n':>4} {'p50 s':>7} {'max s':>7}  answers")
        for kind in ("action", "/readyz", "socket"):
            # In flight during the pause: sent before RESUME, answered after PAUSE.
            during = [s for s in self.samples[kind] if s[0] < ended and s[0] + s[1] > started]
            took = [s[1] for s in during]
            answers = collections.Counter(s[2] for s in during)
            said = ", ".join(f"{what} ×{n}" for what, n in answers.most_common())
            if took:
                p50, top = percentile(took, 0.5), max(took)
                print(f"{kind:<22} {len(took):>4} {p50:>7.2f} {top:>7.2f}  {said}")
            else:
                print(f"{kind:<22} {0:>4} {'-':>7} {'-':>7}")
        print(f"/readyz 200 again {ready:.2f} s after RESUME" if ready is not None else "no 200")


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pause", type=float, default=30.0, help="seconds paused (30)")
    parser.add_argument("--players", type=int, default=6, help="players over HTTP (6)")
    args = parser.parse_args()
    if not (1 <= args.players <= 50 and 1 <= args.pause <= 300):
        parser.error("--players 1 to 50, --pause 1 to 300 s")
    signal.signal(signal.SIGTERM, _terminated)
    with Stack(
        database=f"patience_bench_stall_{os.getpid()}",
        daphnes=1,
        worker=False,
        beat=False,
        prepare=False,
        pgbouncer=True,
        extra={"REGISTER_RATE": "1000/min", "ACTION_RATE": "100000/min", "LOG_LEVEL": "ERROR"},
    ) as stack:
        Run(stack, args.players, args.pause).run()
    return 0


if __name__ == "__main__":
    sys.exit(main())
