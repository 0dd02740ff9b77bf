"""Other players' action latency while one account floods a daphne with sockets
(a benchmark, not a test; issue 25).

    python bench/socket_flood.py [--players 20] [--rate 2] [--flood 200] [--seconds 10]
                                 [--daphnes 1] [--reconnect S] [--nginx]
                                                              # or: make bench-flood

It starts the production process set with ``deploy/stack.py`` (a fresh database
``patience_flood``, a Redis of its own, ``--daphnes`` daphnes; no worker or beat:
nothing here finishes a game). ``--players`` honest players sign up, each starts
an Easy Harp practice game and plays it over its game socket at ``--rate``
actions a second (a stock tap, then its undo: always legal, never the end of the
game), each action timed from its send to its ``ack``.

Three phases of ``--seconds`` each: quiet; the flood, where one more account
opens ``--flood`` sockets on its own game at once, and each socket that opens
asks for a snapshot again and again (a database read each) until the server
closes it (``--reconnect S``: then connects again after S seconds, a storm of
handshakes); and after the flood. It
prints the honest players' p50/p99/max per phase, and what became of the
flood's connections (opened, refused by close code or by HTTP status, dropped).

``--nginx``: everyone connects through nginx in front of the daphnes, as compose
runs it (``deploy/nginx.conf``: its handshake limits per session and network).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import json
import multiprocessing as mp
import sys
import time
from collections import Counter
from pathlib import Path

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidStatus, WebSocketException
from websockets.typing import Origin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from bench.measure import percentile
from deploy.client import Client
from deploy.stack import Stack

DB_NAME = "patience_flood"
PASSWORD = "correct horse battery staple"
CODE = "EH1-N-AAAAAJ2"
ACK_TIMEOUT_S = 30.0
# Honest play is not what is measured against a limit here: the players' own
# action budget is lifted so that only the flood can slow them.
SERVER_ENV = {
    "ACTION_RATE": "1000000/min",
    "GAME_RATE": "100000/min",
    "REGISTER_RATE": "100000/hour",
}


async def open_game_socket(port: int, game_id: int, session: str) -> ClientConnection:
    return await connect(
        f"ws://127.0.0.1:{port}/ws/games/{game_id}/",
        origin=Origin(f"http://127.0.0.1:{port}"),
        additional_headers={"Cookie": f"sessionid={session}"},
        compression=None,
        ping_interval=None,
        open_timeout=ACK_TIMEOUT_S,
        close_timeout=2,
        max_size=2**22,
    )


def signed_up(port: int, name: str) -> tuple[Client, int]:
    client = Client(port)
    client.sign_up(name, PASSWORD)
    game = client.expect("POST", "/api/games/", {"code": CODE}, 201)
    return client, int(game["id"])


class Honest:
    def __init__(self, port: int, name: str) -> None:
        self.port, self.name = port, name
        self.samples: list[tuple[float, float]] = []  # (sent at, seconds to the ack)
        self.errors: Counter[str] = Counter()

    async def set_up(self) -> None:
        self.client, self.game_id = await asyncio.to_thread(signed_up, self.port, self.name)
        self.ws = await open_game_socket(self.port, self.game_id, self.client.cookies["sessionid"])
        first = json.loads(await self.ws.recv())
        self.seq = int(first["v"])

    async def play(self, end: float, period: float) -> None:
        due = time.monotonic()
        while due < end:
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            action = {"type": "stock"} if self.seq % 2 == 0 else {"type": "undo"}
            sent = time.monotonic()
            await self.ws.send(json.dumps({"seq": self.seq, "action": action}))
            try:
                async with asyncio.timeout(ACK_TIMEOUT_S):
                    while True:
                        reply = json.loads(await self.ws.recv())
                        if reply["type"] in ("ack", "error"):
                            break
            except (TimeoutError, ConnectionClosed) as exc:
                self.errors[type(exc).__name__] += 1
                return
            if reply["type"] == "error":
                self.errors[reply["error"]["code"]] += 1
                return
            self.samples.append((sent, time.monotonic() - sent))
            self.seq = int(reply["v"])
            due += period


class Flood:
    """One account's sockets: opened all at once, each asking for snapshots until
    closed, then connecting again. Run in a process of its own (``flood_process``):
    in the honest players' event loop its 200 sockets would delay their timings."""

    def __init__(self, port: int, sockets: int, reconnect: float, game_id: int, session: str):
        self.port, self.sockets, self.reconnect = port, sockets, reconnect
        self.game_id, self.session = game_id, session
        self.outcomes: Counter[str] = Counter()
        self.frames = 0

    async def one(self, end: float) -> None:
        session = self.session
        while time.monotonic() < end:
            try:
                async with asyncio.timeout(max(0.1, end - time.monotonic())):
                    ws = await open_game_socket(self.port, self.game_id, session)
                    try:
                        first = json.loads(await ws.recv())
                        if first["type"] != "snapshot":
                            await ws.recv()  # the close after the error
                        self.outcomes["opened"] += 1
                        while True:
                            await ws.send('{"type":"snapshot"}')
                            await ws.recv()
                            self.frames += 1
                    finally:
                        await ws.close()
            except ConnectionClosed as exc:
                code = exc.rcvd.code if exc.rcvd is not None else "none"
                self.outcomes[f"closed {code}"] += 1
            except TimeoutError:
                return
            except InvalidStatus as exc:  # refused before the handshake (nginx's 429)
                self.outcomes[f"HTTP {exc.response.status_code}"] += 1
            except (OSError, WebSocketException) as exc:
                self.outcomes[type(exc).__name__] += 1
            if not self.reconnect:
                return
            await asyncio.sleep(self.reconnect)

    async def run(self, end: float) -> None:
        await asyncio.gather(*(self.one(end) for _ in range(self.sockets)))


def flood_process(
    target: tuple[int, int, str], how: tuple[int, float], span: tuple[float, float]
) -> tuple[Counter[str], int]:
    """The flood, in a child process: on ``target`` (port, game id, session
    cookie), ``how`` (sockets, reconnect delay), from ``span[0]`` to ``span[1]``
    (``time.monotonic``: the same clock in every process); its outcomes and
    snapshots answered."""
    flood = Flood(target[0], how[0], how[1], target[1], target[2])

    async def main() -> None:
        await asyncio.sleep(max(0.0, span[0] - time.monotonic()))
        await flood.run(span[1])

    asyncio.run(main())
    return flood.outcomes, flood.frames


def figures(samples: list[float]) -> str:
    if not samples:
        return "no acks"
    ms = sorted(s * 1000 for s in samples)
    return (
        f"{len(ms):5d} acks  p50 {percentile(ms, 0.5):7.1f} ms  p99 {percentile(ms, 0.99):7.1f} ms"
        f"  max {ms[-1]:7.1f} ms"
    )


async def run(port: int, args: argparse.Namespace) -> None:
    players = [Honest(port, f"honest{n}") for n in range(args.players)]
    for player in players:  # one at a time: sign-up hashing is slow on purpose
        await player.set_up()
    flooder, game_id = await asyncio.to_thread(signed_up, port, "flooder")
    period, span = 1 / args.rate, args.seconds
    start = time.monotonic() + 1.5  # the flood's process started meanwhile
    end = start + 3 * span
    flood_at, after_at = start + span, start + 2 * span
    how = (args.flood, args.reconnect)
    with concurrent.futures.ProcessPoolExecutor(1, mp_context=mp.get_context("spawn")) as pool:
        target = (port, game_id, flooder.cookies["sessionid"])
        flooding = asyncio.get_running_loop().run_in_executor(
            pool, flood_process, target, how, (flood_at, after_at)
        )
        (outcomes, frames), *_ = await asyncio.gather(
            flooding, *(p.play(end, period) for p in players)
        )
    phases = {"quiet": [], "flood": [], "after": []}  # type: dict[str, list[float]]
    for player in players:
        for sent, seconds in player.samples:
            phase = "quiet" if sent < flood_at else "flood" if sent < after_at else "after"
            phases[phase].append(seconds)
    door = " behind nginx" if args.nginx else ""
    print(
        f"{args.players} players at {args.rate:g} actions/s each, on {args.daphnes} daphne(s){door}"
    )
    for phase, samples in phases.items():
        print(f"  {phase:6s} {figures(samples)}")
    errors = sum((p.errors for p in players), Counter())
    print(f"  honest errors: {dict(errors) or 'none'}")
    again = f", reconnecting after {args.reconnect:g} s" if args.reconnect else ""
    print(
        f"  flood ({args.flood} sockets, one account{again}, a process of its own):"
        f" {dict(outcomes)}, {frames} snapshots answered"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=20, help="honest players (20)")
    parser.add_argument("--rate", type=float, default=2.0, help="their actions/s each (2)")
    parser.add_argument("--flood", type=int, default=200, help="the flood's sockets (200)")
    parser.add_argument("--seconds", type=float, default=10.0, help="length of each phase (10)")
    parser.add_argument("--daphnes", type=int, default=1, help="daphne processes (1)")
    parser.add_argument(
        "--reconnect",
        type=float,
        default=0.0,
        help="a closed flood socket connects again after this many seconds (0: never)",
    )
    parser.add_argument(
        "--nginx", action="store_true", help="connect through nginx, as compose runs it"
    )
    args = parser.parse_args()
    with Stack(
        database=DB_NAME,
        daphnes=args.daphnes,
        prepare=False,
        worker=False,
        beat=False,
        extra=SERVER_ENV,
        nginx=args.nginx,
    ) as stack:
        asyncio.run(run(stack.nginx_port or stack.ports[0], args))
    return 0


if __name__ == "__main__":
    sys.exit(main())
