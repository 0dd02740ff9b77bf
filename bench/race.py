"""A race room under load (issue 29, deliverable 4; a benchmark, not a test).

    python bench/race.py [--racers 50] [--spectators 200] [--rate 2] [--seconds 20]
                         [--queue 500] [--arrive 20]             # or: make bench-race

It starts the production process set with ``deploy/stack.py`` on **one** daphne
(a fresh PostgreSQL database ``patience_racebench``, a Redis of its own, a
Celery worker and beat; rate and socket limits raised so that nothing stops on
429). ``--racers`` players sign up; the first opens a room on a random Seahaven
(4 cells) deal, the others join, the host starts it; ``--spectators`` signed-out
sockets follow the room (``/ws/races/{race}/``).
After the countdown every racer plays over their game socket at ``--rate``
actions/s for ``--seconds`` s, open loop (a random phase each), legal actions
chosen from the last ``game`` received as ``bench/ws_load.py`` chooses them.

It prints: actions acknowledged and the ack latency of a racer's own action
(from its due time: p50/p95/p99/max); progress frames received by the room's
sockets, per socket per second and per action (the fan-out: frames one action
makes the daphne send, coalesced at the source to at most 2 a racer a second);
the CPU of the daphne, PostgreSQL, Redis and the worker per action; and beside
it the floor of one action (``bench/cost.py``: a bare transaction, a Redis
publish, a websocket echo, the engine's apply — measured in the same run on the
run's own actions). Then, on the same stack, a quick race queue of ``--queue``
players (``bench/quick_race.py``: who is matched, how soon, with whom, and the
CPU per ask). Processes and database are cleaned up at the end, also on
Ctrl-C or SIGTERM.

It exits 1, saying why, when a racer's game socket or a spectator's socket did
not open (or closed before the end), when no action was acknowledged, or when
the spectators got no progress frame (a fan-out of 0): figures without them
measure nothing (issue 38: 200 spectators dropped at the handshake printed
"fan-out 0.0" and exited 0).
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import datetime as dt
import json
import random
import signal
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from websockets.asyncio.client import connect
from websockets.typing import Origin

from bench import quick_race
from bench.cost import floor, typical_game
from bench.measure import machine, percentile
from bench.ws_load import CpuMeter, choose_action, stuck
from deploy.client import Client
from deploy.processes import postgres_version
from deploy.stack import Stack

DB_NAME = "patience_racebench"
SERVER_ENV = {
    "REGISTER_RATE": "100000/hour",
    "RACE_RATE": "100000/min",
    "QUICK_RACE_RATE": "100000/min",
    "ACTION_RATE": "100000/min",
    "LOG_LEVEL": "WARNING",
    "WS_MAX_PER_ADDRESS": "0",
    "WS_SNAPSHOT_RATE": "1000",
    "WS_SNAPSHOT_BURST": "1000",
}
PASSWORD = "bench horse battery staple"
ACK_TIMEOUT_S = 10.0


class Racer:
    def __init__(self, index: int, port: int) -> None:
        self.index = index
        self.port = port
        self.http = Client(port)
        self.rng = random.Random(f"race-{index}")
        self.attempt = 0
        self.latencies: list[float] = []
        self.lost = 0
        self.game: dict[str, Any] = {}
        self.connected = False
        self.failed = ""  # why its game socket did not open, or closed early

    def origin(self) -> dict[str, Any]:
        return {
            "origin": Origin(f"http://127.0.0.1:{self.port}"),
            "additional_headers": {"Cookie": f"sessionid={self.http.cookies['sessionid']}"},
        }

    async def play(self, rate: float, until: float) -> None:
        uri = f"ws://127.0.0.1:{self.port}/ws/games/{self.attempt}/"
        try:
            async with connect(uri, compression=None, ping_interval=None, **self.origin()) as ws:
                self.connected = True
                await self._play(ws, rate, until)
        except Exception as exc:  # counted and said, not raised: the others play on
            self.failed = f"{type(exc).__name__}: {exc}"

    async def _play(self, ws: Any, rate: float, until: float) -> None:
        game = self.game = json.loads(await ws.recv())["game"]
        due = time.monotonic() + self.rng.random() / rate
        while due < until and not stuck(game) and game["status"] == "playing":
            await asyncio.sleep(max(0.0, due - time.monotonic()))
            seq = game["seq"]
            await ws.send(json.dumps({"seq": seq, "action": choose_action(game, self.rng)}))
            try:
                async with asyncio.timeout(ACK_TIMEOUT_S):
                    while True:
                        message = json.loads(await ws.recv())
                        if message["type"] in ("ack", "error"):
                            break
            except TimeoutError:
                self.lost += 1
                break
            if message["type"] == "ack":
                self.latencies.append((time.monotonic() - due) * 1000)
                game = self.game = message["game"]
            else:  # refused (a rule): read the game again
                await ws.send(json.dumps({"type": "snapshot"}))
                while (message := json.loads(await ws.recv()))["type"] not in (
                    "snapshot",
                    "error",
                ):
                    pass
                game = message.get("game", game)
            due += 1 / rate


async def follow(port: int, slug: str, counts: dict[str, int], stop: asyncio.Event) -> None:
    """A signed-out spectator: counts the frames it gets, by type, and their bytes."""
    uri = f"ws://127.0.0.1:{port}/ws/races/{slug}/"
    origin = Origin(f"http://127.0.0.1:{port}")
    try:
        async with connect(uri, compression=None, ping_interval=None, origin=origin) as ws:
            counts["connected"] = 1
            while not stop.is_set():
                try:
                    async with asyncio.timeout(0.5):
                        text = await ws.recv()
                except TimeoutError:
                    continue
                kind = json.loads(text)["type"]
                counts[kind] = counts.get(kind, 0) + 1
                counts["bytes"] = counts.get("bytes", 0) + len(text)
    except Exception:  # refused, dropped at the handshake or closed: counted
        counts["failed"] = 1


async def run(args: argparse.Namespace, stack: Stack) -> dict[str, Any]:
    port = stack.ports[0]
    pool = concurrent.futures.ThreadPoolExecutor(8)
    loop = asyncio.get_running_loop()
    racers = [Racer(i, port) for i in range(args.racers)]
    tag = str(int(time.time()) % 100000)
    await asyncio.gather(
        *(
            loop.run_in_executor(pool, r.http.sign_up, f"rb{tag}x{r.index}", PASSWORD)
            for r in racers
        )
    )
    host = racers[0]
    race = host.http.expect("POST", "/api/races/", {"random": "SH1-C4"}, 201)
    slug = race["id"]
    await asyncio.gather(
        *(
            loop.run_in_executor(pool, r.http.expect, "POST", f"/api/races/{slug}/join/")
            for r in racers[1:]
        )
    )
    stop = asyncio.Event()
    counts: list[dict[str, int]] = [{} for _ in range(args.spectators)]
    followers = [
        asyncio.create_task(follow(port, slug, counts[i], stop)) for i in range(args.spectators)
    ]
    await asyncio.sleep(2)  # every spectator in the room
    started = host.http.expect("POST", f"/api/races/{slug}/start/")
    for racer in racers:
        racer.attempt = racer.http.expect("GET", f"/api/races/{slug}/")["you"]["attempt"]
    starts = dt.datetime.fromisoformat(started["starts_at"].replace("Z", "+00:00"))
    await asyncio.sleep(max(0.0, (starts - dt.datetime.now(dt.UTC)).total_seconds()) + 0.2)
    for c in counts:  # the frames of the race; whether the socket opened stays
        for kind in [k for k in c if k not in ("connected", "failed")]:
            del c[kind]
    pids = {"daphne 1": stack.daphnes[0].pid} if stack.daphnes[0] else {}
    if stack.worker is not None:
        pids["celery worker"] = stack.worker.pid
    cpu = CpuMeter(pids, DB_NAME)
    cpu.start()
    began = time.monotonic()
    await asyncio.gather(*(r.play(args.rate, began + args.seconds) for r in racers))
    await asyncio.sleep(1.0)  # the trailing progress frames
    cpu.finish()
    elapsed = time.monotonic() - began
    stop.set()
    await asyncio.gather(*followers, return_exceptions=True)
    latencies = [ms for r in racers for ms in r.latencies]
    games = [r.game for r in racers if r.game]
    return {
        "slug": slug,
        "latencies": latencies,
        "lost": sum(r.lost for r in racers),
        "counts": counts,
        "racers": racers,
        "elapsed": elapsed,
        "cpu": cpu,
        "games": games,
    }


def failures(args: argparse.Namespace, result: dict[str, Any]) -> list[str]:
    """Why the run measured nothing worth printing as a result (empty: nothing)."""
    problems = []
    racers = result["racers"]
    opened = sum(r.connected for r in racers)
    broken = [r for r in racers if r.failed]
    if opened < len(racers) or broken:
        why = f" (first: {broken[0].failed})" if broken else ""
        problems.append(
            f"racers' game sockets: {opened} of {len(racers)} opened, {len(broken)} failed{why}"
        )
    counts = result["counts"]
    watching = sum(1 for c in counts if c.get("connected") and not c.get("failed"))
    if watching < args.spectators:
        problems.append(
            f"spectators: {watching} of {args.spectators} connected and stayed to the end"
        )
    if not result["latencies"]:
        problems.append("no action was acknowledged")
    if not sum(c.get("progress", 0) for c in counts):
        problems.append("fan-out 0: no spectator got a progress frame")
    return problems


def report(args: argparse.Namespace, result: dict[str, Any], stack: Stack) -> float | None:
    """Prints the room's figures; returns the run's floor of one action (ms)."""
    actions = len(result["latencies"])
    lat = result["latencies"]
    elapsed = result["elapsed"]
    progress = [c.get("progress", 0) for c in result["counts"]]
    races = [c.get("race", 0) for c in result["counts"]]
    sockets = args.spectators
    frames_total = sum(progress)
    used = result["cpu"].used()
    daphne = sum(v for k, v in used.items() if k.startswith("daphne"))
    postgres = used.get(f"postgres ({DB_NAME})", 0.0)
    redis_cpu = used.get("redis-server", 0.0)
    worker = used.get("celery worker", 0.0)
    print(f"\n# bench/race.py — {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {machine()}")
    print(
        f"PostgreSQL {postgres_version()}; one daphne; {args.racers} racers, "
        f"{args.spectators} spectators, "
        f"{args.rate:g} actions/s a racer for {args.seconds:g} s"
    )
    opened = sum(r.connected for r in result["racers"])
    watching = sum(1 for c in result["counts"] if c.get("connected") and not c.get("failed"))
    print(
        f"sockets open: racers {opened} of {args.racers}, "
        f"spectators {watching} of {args.spectators}"
    )
    print(f"actions acknowledged: {actions} ({actions / elapsed:.1f}/s), lost: {result['lost']}")
    if lat:
        print(
            "a racer's own ack, from its due time: "
            f"p50 {percentile(lat, 0.5):.1f} ms, p95 {percentile(lat, 0.95):.1f} ms, "
            f"p99 {percentile(lat, 0.99):.1f} ms, max {max(lat):.1f} ms"
        )
    per_socket = sum(progress) / max(1, args.spectators)
    print(
        f"progress frames per spectator: {per_socket:.0f} in {elapsed:.1f} s "
        f"({per_socket / elapsed:.1f}/s for {args.racers} racers: at most "
        "2/s by the room's gate); race frames per spectator: "
        f"{sum(races) / max(1, args.spectators):.1f}"
    )
    if actions:
        print(
            f"fan-out: {frames_total / actions:.1f} progress frames sent per action "
            f"({sockets} room sockets; without the gate: {sockets} per action)"
        )
        print(
            f"CPU per action: daphne {daphne * 1000 / actions:.2f} ms, PostgreSQL "
            f"{postgres * 1000 / actions:.2f} ms, Redis {redis_cpu * 1000 / actions:.2f} ms, "
            f"worker {worker * 1000 / actions:.2f} ms"
        )
    busy, total = result["cpu"].machine
    print(
        f"this client (the racers and spectators): {result['cpu'].client:.1f} s of CPU; the "
        f"machine's CPUs busy {100 * busy / max(total, 1e-9):.0f}% over the run"
    )
    if not result["games"]:
        return None
    typical = typical_game(stack.database_url, result["games"])
    event = json.dumps({"type": "state", "v": typical["seq"], "game": typical})
    found = floor(stack, {g["id"] for g in result["games"]}, event, typical["id"])
    print(
        f"the floor of one action (bench/cost.py, this run): {found.total:.2f} ms "
        f"(transaction {found.transaction_client:.2f}, publish {found.publish:.2f}, "
        f"echo {found.echo:.2f}, apply {found.apply:.2f}); daphne per action: "
        f"{daphne * 1000 / max(1, actions) / found.total:.1f}× the floor"
    )
    return float(found.total)


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--racers", type=int, default=50, help="racers (50, at most 50)")
    parser.add_argument("--spectators", type=int, default=200, help="spectator sockets (200)")
    parser.add_argument("--rate", type=float, default=2.0, help="actions/s per racer (2)")
    parser.add_argument("--seconds", type=float, default=20.0, help="length of the race (20)")
    parser.add_argument(
        "--queue", type=int, default=500, help="quick race: players queueing (500; 0: none)"
    )
    parser.add_argument(
        "--arrive", type=float, default=20.0, help="quick race: they tap over this many s (20)"
    )
    parser.add_argument(
        "--patience", type=float, default=120.0, help="quick race: a player asks this long (120)"
    )
    args = parser.parse_args()
    if not 2 <= args.racers <= 50:
        parser.error("--racers must be 2 to 50")
    signal.signal(signal.SIGTERM, _terminated)
    stack = Stack(database=DB_NAME, daphnes=1, prepare=False, extra=SERVER_ENV)
    try:
        stack.start()
        result = asyncio.run(run(args, stack))
        floor_ms = report(args, result, stack)
        queued = None
        if args.queue:
            queued = asyncio.run(
                quick_race.run_queue(
                    stack,
                    players=args.queue,
                    arrive=args.arrive,
                    patience=args.patience,
                    password=PASSWORD,
                )
            )
            quick_race.report(queued, floor_ms)
    finally:
        stack.close()
    problems = failures(args, result) + (quick_race.failures(queued) if queued else [])
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("stopped by Ctrl-C")
