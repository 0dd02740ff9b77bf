"""Server CPU per accepted action against its floor (a benchmark, not a test).

    python bench/cost.py [--players 30] [--rate 2] [--seconds 40]   # or: make bench-cost

It starts the production process set with ``deploy/stack.py`` (a fresh PostgreSQL
database ``patience_cost``, a Redis of its own, 2 daphnes, a Celery worker and
beat; rate limits raised so that nothing stops on 429) and, in one run:

1. **Websocket**: ``--players`` players (spread over the daphnes) sign up, then
   each plays at ``--rate`` actions/s for ``--seconds`` s, open loop, over its
   game socket — the players of ``bench/ws_load.py``: legal actions chosen from
   the last ``game`` received (``view.targets``, ``stock``, now and then ``undo``);
   a game won, stuck or long is resigned and a new one started over HTTP, as
   in real play. Seeded: the same deals (``{"code": …}``) and choices every run.
2. **HTTP**: the same players go on with the same games over
   ``POST /api/games/{id}/actions/`` (one keep-alive connection each).

Each phase's CPU comes from /proc (``CpuMeter``): the daphnes, the PostgreSQL
backends of the database, PostgreSQL's shared processes (WAL writer, …), the
Celery worker (its queue is drained before the phase's meter stops, so the
phase's dead-end proofs count in it) and the stack's Redis; divided by the
actions acknowledged. Game starts and resignations are part of the load, as in
real play. An idle spell before the load shows the background.

3. **The floor**, in the same run on the same database and Redis:
   (1) a bare psycopg transaction per action of the run: ``SELECT … FOR UPDATE``
   of one attempt row (the columns the action reads, the state as text), the
   action-log ``INSERT``, the attempt ``UPDATE`` (state, seq, score, moves, won,
   updated_at) and ``COMMIT``, writing what the run's actions wrote (their log
   replayed) — CPU of this client and of its PostgreSQL backend per
   transaction; (2) a Redis ``PUBLISH`` of a ``state`` event of the run
   (~1.1–1.5 KB) — client CPU; (3) an ASGI websocket echo (``echo`` below, no
   Django) under a daphne of its own, one client socket sending that event and
   waiting for it back — daphne CPU per frame; (4) the engine's ``apply``, timed
   alone over the run's actions replayed. The floor is (1) client + (2) + (3) + (4).

Last, each transport's daphne CPU per action against the floor and its
PostgreSQL CPU per action against the bare transaction's, beside the targets of
issue 26: websocket ≤ 2.5× the floor, HTTP ≤ 4× (issue 14's PostgreSQL ≤ 1 ms per
action beside them).
Processes and database are cleaned up at the end, also on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import datetime as dt
import json
import os
import platform
import random
import re
import signal
import statistics
import sys
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

import psycopg
import redis
from websockets.asyncio.client import connect

from bench.engine import timer_overhead
from bench.measure import drain, machine, percentile
from bench.ws_load import (
    ACK_TIMEOUT_S,
    HTTP_THREADS,
    MAX_FAILURES,
    MAX_GAME_ACTIONS,
    SERVER_ENV,
    VARIANTS,
    CpuMeter,
    Player,
    Stats,
    check_database,
    choose_action,
    proc_cpu,
    stuck,
)
from deploy.processes import free_port, postgres_version, start_daphne, stop, wait_for_port
from deploy.stack import Stack
from games.engine import GameCode, new_game, parse_variant
from games.engine.codes import MAX_DEAL

DB_NAME = "patience_cost"
ENV = {
    **SERVER_ENV,
    "ACTION_RATE": "1000000/min",
    "GAME_RATE": "1000000/min",
    "LOG_LEVEL": "INFO",
}
"""The servers' settings beside the production defaults: rate limits no run reaches
(they are still counted in Redis on every action, as in production), and the
production log level, so each action's log lines are in its cost (the worker's
"ready" and "received" lines, which this bench reads, are INFO too)."""
SEED = 20261202
TARGETS = {"websocket": 2.5, "HTTP": 4.0}
"""Daphne CPU per action at most this many times the floor (issue 26)."""
PG_TARGET_MS = 1.0
"""PostgreSQL CPU per action (its backends) at most this (issue 14)."""
IDLE_S = 3.0
DRAIN_LIMIT_S = 60.0
"""How long the worker may take to empty its queue after a phase."""
FLOOR_PUBLISHES = 5000
FLOOR_FRAMES = 5000
WARM_UP = 100


# --- the players --------------------------------------------------------------------------


class CostPlayer(Player):
    """A ``bench/ws_load.py`` player with seeded deals and actions that can also
    play over HTTP (``over_http``): the same game, the same choices."""

    def __init__(self, index: int, **kwargs: Any) -> None:
        super().__init__(index, tag="cost", **kwargs)
        self.rng = random.Random(f"{SEED}-{index}")
        self.over_http = False

    async def new_game(self) -> None:
        """A practice game on a seeded numbered deal (the next variant in turn)."""
        game, letter = parse_variant(VARIANTS[(self.index + self.games) % len(VARIANTS)])
        code = GameCode(game, letter, self.rng.randint(1, MAX_DEAL))
        self.games += 1
        self.game = await self.call("POST", "/api/games/", {"code": str(code)}, 201)
        self.game_actions = 0
        self.stats.games += 1
        self.stats.attempt_ids.add(self.game["id"])
        if not self.over_http:
            await self.open_socket()

    async def mend(self) -> None:
        if not self.over_http:
            await super().mend()
            return
        if self.game is None or self.game["status"] != "playing":
            await self.new_game()
        await self.replace_if_over()

    async def replace_if_over(self) -> None:
        if not self.over_http:
            await super().replace_if_over()
            return
        for _ in range(MAX_FAILURES):
            assert self.game is not None
            if self.game["status"] == "playing":
                if not stuck(self.game) and self.game_actions < MAX_GAME_ACTIONS:
                    return
                await self.call("POST", f"/api/games/{self.game['id']}/resign/")
                self.stats.resigned += 1
            elif self.game["status"] == "won":
                self.stats.won += 1
            await self.new_game()
        raise RuntimeError(f"{MAX_FAILURES} games in a row could not be played")

    async def act(self, due: float) -> None:
        if not self.over_http:
            await super().act(due)
            return
        loop = asyncio.get_running_loop()
        assert self.game is not None
        path = f"/api/games/{self.game['id']}/actions/"
        action = choose_action(self.game, self.rng)
        body = {"seq": self.game["seq"], "action": action}
        self.stats.sent += 1
        answer = await loop.run_in_executor(self.pool, self.http.request, "POST", path, body)
        got = loop.time()
        if answer.status == 200:
            self.stats.latencies.append((got - due) * 1000)
            self.stats.last_ack = got
            self.stats.acks += 1
            self.game = answer.body
            self.game_actions += 1
            return
        data = answer.body if isinstance(answer.body, dict) else {}
        code = data.get("error", {}).get("code", str(answer.status))
        self.stats.errors[code] += 1
        refused = f"{action}: {answer.status} {answer.body}"
        self.stats.first_error = self.stats.first_error or refused
        self.game = await self.call("GET", f"/api/games/{self.game['id']}/")


# --- the phases --------------------------------------------------------------------------


@dataclass
class Phase:
    name: str
    stats: Stats
    cpu: CpuMeter
    run_s: float
    drain_s: float
    left: int
    """Tasks still queued (or running) when the drain gave up."""
    tasks: Counter[str]
    """Tasks the worker received during the phase, by name."""


TASK = re.compile(r"Task games\.tasks\.(\w+)\[[^]]+\] received")
BEAT_TASKS = (
    "prepare_daily_deals",
    "prepare_daily_deal",
    "close_stale_attempts",
    "verify_pending_attempts",
)


def worker_ready(stack: Stack) -> None:
    """Wait for the worker's start-up to end (its CPU is not the load's)."""
    limit = time.monotonic() + 60
    while " ready." not in stack.log("worker"):
        if time.monotonic() > limit:
            raise RuntimeError(
                f"the worker is not ready after 60 s:\n{stack.log('worker')[-2000:]}"
            )
        time.sleep(0.2)


async def phase(
    name: str,
    players: list[CostPlayer],
    *,
    rate: float,
    seconds: float,
    pids: dict[str, int],
    database: str,
    broker: redis.Redis,
    worker_log: Callable[[], str],
) -> Phase:
    """Set every player up (a game that can go on, its socket over the websocket),
    then the metered load and the worker's drain."""
    loop = asyncio.get_running_loop()
    stats = Stats()
    for player in players:
        player.stats = stats
        player.over_http = name == "HTTP"
    await asyncio.gather(*(p.mend() for p in players))
    await drain(broker, DRAIN_LIMIT_S)  # the set-up's replay checks are not the phase's
    seen = len(worker_log())
    cpu = CpuMeter(pids, database)
    cpu.start()
    start = loop.time() + 0.1
    end = start + seconds
    try:
        async with asyncio.timeout(seconds + ACK_TIMEOUT_S * 3 + 10):
            await asyncio.gather(*(p.play(start, end, 1 / rate) for p in players))
        drain_s, left = await drain(broker, DRAIN_LIMIT_S)
    finally:
        cpu.finish()
        await asyncio.gather(*(p.close_socket() for p in players), return_exceptions=True)
    run_s = (max(stats.last_ack, end) if stats.acks else end) - start
    tasks = Counter(TASK.findall(worker_log()[seen:]))
    return Phase(name, stats, cpu, run_s, drain_s, left, tasks)


async def idle(pids: dict[str, int], database: str) -> CpuMeter:
    cpu = CpuMeter(pids, database)
    cpu.start()
    await asyncio.sleep(IDLE_S)
    cpu.finish()
    return cpu


async def load(
    stack: Stack, *, players_n: int, rate: float, seconds: float
) -> tuple[CpuMeter, list[Phase], list[CostPlayer]]:
    assert stack.redis is not None and stack.worker is not None
    pids = {f"daphne {n + 1}": p.pid for n, p in enumerate(stack.daphnes) if p}
    pids |= {"celery worker": stack.worker.pid, "redis": stack.redis.pid}
    broker = stack.redis_client()
    pool = concurrent.futures.ThreadPoolExecutor(players_n, thread_name_prefix="http")
    players = [
        CostPlayer(
            i, host="127.0.0.1", port=stack.ports[i % len(stack.ports)], stats=Stats(), pool=pool
        )
        for i in range(players_n)
    ]
    try:
        began = time.monotonic()
        worker_ready(stack)
        signing = asyncio.Semaphore(HTTP_THREADS)  # as bench/ws_load.py: no pool timeouts

        async def sign_up(player: CostPlayer) -> None:
            async with signing:
                await player.sign_up()

        await asyncio.gather(*(sign_up(p) for p in players))
        print(f"signed up {players_n} players in {time.monotonic() - began:.1f} s", file=sys.stderr)
        background = await idle(pids, stack.database)
        phases = []
        for name in ("websocket", "HTTP"):
            print(f"{name}: {players_n} players × {rate:g} actions/s…", file=sys.stderr)
            phases.append(
                await phase(
                    name,
                    players,
                    rate=rate,
                    seconds=seconds,
                    pids=pids,
                    database=stack.database,
                    broker=broker,
                    worker_log=lambda: stack.log("worker"),
                )
            )
        return background, phases, players
    finally:
        await asyncio.gather(*(p.close_socket() for p in players), return_exceptions=True)
        for player in players:
            player.http.close()
        pool.shutdown(wait=False, cancel_futures=True)
        broker.close()


# --- the floor -----------------------------------------------------------------------------

Write = tuple[str, str, int, int, int, str]
"""What an action writes: sent and resolved action (JSON), ms, score, moves, and
the attempt's state after it (JSON)."""


LOCK = (
    "SELECT id, player_id, status, seq, ranked, daily_id, started_at, state::text"
    " FROM games_attempt WHERE id = %s FOR UPDATE"
)
LOG = (
    "INSERT INTO games_action (attempt_id, seq, month, sent, action, ms, score, moves)"
    " VALUES (%s, %s, %s, %s::jsonb, %s::jsonb, %s, %s, %s)"
)
SAVE = (
    "UPDATE games_attempt SET state = %s::jsonb, seq = %s, score = %s, moves = %s,"
    " won = false, updated_at = now() WHERE id = %s"
)


@dataclass
class Floor:
    transaction_client: float
    transaction_postgres: float
    state_bytes: int
    publish: float
    publish_redis: float
    event_bytes: int
    echo: float
    apply: float
    applied: int

    @property
    def total(self) -> float:
        return self.transaction_client + self.publish + self.echo + self.apply


def pg_url(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1)


def floor_transaction(url: str, attempt_id: int, writes: list[Write]) -> tuple[float, float]:
    """(client ms, PostgreSQL backend ms) per bare transaction: the run's writes
    (``writes``, one per action) made again on one attempt row, in order."""
    with psycopg.connect(pg_url(url)) as conn:
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()
        row = conn.execute("SELECT seq FROM games_attempt WHERE id = %s", (attempt_id,)).fetchone()
        conn.commit()
        assert backend and row
        seq = row[0]

        def run(batch: list[Write]) -> None:
            nonlocal seq
            for sent, action, ms, score, moves, state in batch:
                locked = conn.execute(LOCK, (attempt_id,)).fetchone()
                assert locked
                # The partition key, as the service writes it: the attempt's start month.
                month = locked[6].astimezone(dt.UTC).date().replace(day=1)
                conn.execute(LOG, (attempt_id, seq, month, sent, action, ms, score, moves))
                conn.execute(SAVE, (state, seq + 1, score, moves, attempt_id))
                conn.commit()
                seq += 1

        run(writes[:WARM_UP])
        server0, client0 = proc_cpu(backend[0]), time.thread_time()
        run(writes)
        client, server = time.thread_time() - client0, proc_cpu(backend[0])
    assert server0 and server
    per = 1000 / len(writes)
    return client * per, (server[1] - server0[1]) * per


def floor_publish(stack: Stack, event: str) -> tuple[float, float]:
    """(client ms, redis-server ms) per ``PUBLISH`` of ``event``."""
    assert stack.redis is not None
    client = stack.redis_client()
    try:
        for _ in range(WARM_UP):
            client.publish("cost.floor", event)
        server0, client0 = proc_cpu(stack.redis.pid), time.thread_time()
        for _ in range(FLOOR_PUBLISHES):
            client.publish("cost.floor", event)
        used, server = time.thread_time() - client0, proc_cpu(stack.redis.pid)
    finally:
        client.close()
    assert server0 and server
    per = 1000 / FLOOR_PUBLISHES
    return used * per, (server[1] - server0[1]) * per


async def echo(
    scope: dict[str, Any], receive: Callable[..., Any], send: Callable[..., Any]
) -> None:
    """The ASGI app of floor (3): a websocket that sends every frame back."""
    if scope["type"] != "websocket":
        return
    while True:
        event = await receive()
        if event["type"] == "websocket.connect":
            await send({"type": "websocket.accept"})
        elif event["type"] == "websocket.receive":
            if event.get("text") is not None:
                await send({"type": "websocket.send", "text": event["text"]})
            else:
                await send({"type": "websocket.send", "bytes": event["bytes"]})
        else:
            return


def floor_echo(stack: Stack, event: str) -> float:
    """Daphne CPU ms per frame echoed by ``echo`` under a daphne of its own."""
    port = free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    daphne = start_daphne(port, env, stack.logs / "echo.log", app="bench.cost:echo")
    try:
        wait_for_port("127.0.0.1", port, daphne, "the echo daphne")

        async def frames() -> float:
            uri = f"ws://127.0.0.1:{port}/"
            async with connect(uri, compression=None, ping_interval=None) as ws:
                for _ in range(WARM_UP):
                    await ws.send(event)
                    await ws.recv()
                before = proc_cpu(daphne.pid)
                for _ in range(FLOOR_FRAMES):
                    await ws.send(event)
                    if await ws.recv() != event:
                        raise RuntimeError("the echo is not the frame sent")
                after = proc_cpu(daphne.pid)
            assert before and after
            return (after[1] - before[1]) * 1000 / FLOOR_FRAMES

        return asyncio.run(frames())
    finally:
        stop([daphne])


def replay(url: str, attempt_ids: set[int]) -> tuple[float, list[Write]]:
    """The given attempts' logs replayed from their deals through the engine:
    (mean ms of ``Game.apply`` alone, what each action wrote)."""
    with psycopg.connect(pg_url(url)) as conn:
        codes = dict(
            conn.execute(
                "SELECT a.id, d.code FROM games_attempt a JOIN games_deal d ON d.id = a.deal_id"
                " WHERE a.id = ANY(%s)",
                (sorted(attempt_ids),),
            ).fetchall()
        )
        logs: dict[int, list[tuple[Any, int]]] = {}
        for attempt_id, sent, ms in conn.execute(
            "SELECT attempt_id, sent, ms FROM games_action WHERE attempt_id = ANY(%s)"
            " ORDER BY attempt_id, seq",
            (sorted(attempt_ids),),
        ):
            logs.setdefault(attempt_id, []).append((sent, ms))
    clock = time.perf_counter_ns
    overhead = timer_overhead()
    total = 0
    writes: list[Write] = []
    for attempt_id, log in logs.items():
        game = new_game(codes[attempt_id])
        for sent, ms in log:
            parsed = game.parse_action(sent)
            start = clock()
            resolved = game.apply(parsed)
            total += clock() - start - overhead
            writes.append(
                (
                    json.dumps(sent),
                    json.dumps(resolved.to_json()),
                    ms,
                    game.score,
                    game.moves,
                    json.dumps(game.to_json()),
                )
            )
    return total / max(1, len(writes)) / 1e6, writes


def typical_game(url: str, games: list[dict[str, Any]]) -> dict[str, Any]:
    """The game whose stored state has the median size among ``games`` (the
    players' last games): the floor's transactions lock and update its row, and
    its ``state`` event is the message published and echoed."""
    with psycopg.connect(pg_url(url)) as conn:
        sizes = dict(
            conn.execute(
                "SELECT id, octet_length(state::text) FROM games_attempt WHERE id = ANY(%s)",
                ([g["id"] for g in games],),
            ).fetchall()
        )
    ranked = sorted(games, key=lambda g: sizes[g["id"]])  # stable: ties in player order
    return ranked[len(ranked) // 2]


def floor(stack: Stack, attempt_ids: set[int], event: str, attempt_id: int) -> Floor:
    apply_ms, writes = replay(stack.database_url, attempt_ids)
    client_ms, postgres_ms = floor_transaction(stack.database_url, attempt_id, writes)
    publish_ms, redis_ms = floor_publish(stack, event)
    echo_ms = floor_echo(stack, event)
    return Floor(
        transaction_client=client_ms,
        transaction_postgres=postgres_ms,
        state_bytes=round(statistics.mean(len(w[5]) for w in writes)),
        publish=publish_ms,
        publish_redis=redis_ms,
        event_bytes=len(event.encode()),
        echo=echo_ms,
        apply=apply_ms,
        applied=len(writes),
    )


# --- the report ------------------------------------------------------------------------------


def groups(cpu: CpuMeter, database: str) -> dict[str, float]:
    """CPU seconds of each reported group."""
    used = cpu.used()
    daphnes = sum(v for k, v in used.items() if k.startswith("daphne"))
    return {
        f"daphne ({sum(k.startswith('daphne') for k in cpu.daphnes)} processes)": daphnes,
        "PostgreSQL backends": used.get(f"postgres ({database})", 0.0),
        "PostgreSQL shared": used.get("postgres (shared)", 0.0),
        "Celery worker": used.get("celery worker", 0.0),
        "Redis (the stack's)": used.get("redis", 0.0),
    }


def machine_seconds(cpu: CpuMeter) -> float:
    busy, total = cpu.machine
    return (os.cpu_count() or 1) * busy / total * cpu.elapsed if total else 0.0


def report(
    *,
    args: argparse.Namespace,
    background: CpuMeter,
    phases: list[Phase],
    found: Floor,
    pg_version: str,
    db_check: tuple[int, int],
    acks: int,
    worker_log: str,
) -> None:
    database = DB_NAME
    print(f"machine : {machine()}; {platform.python_implementation()} {platform.python_version()}")
    print(f"postgres: {pg_version.split(',', maxsplit=1)[0]}")
    print(
        "server  : 2 daphnes, a Celery worker and beat, PostgreSQL, the stack's Redis "
        "(deploy/stack.py), ACTION_RATE/GAME_RATE raised"
    )
    print(
        f"load    : {args.players} players × {args.rate:g} actions/s = "
        f"{args.players * args.rate:g}/s offered, {args.seconds:g} s per transport, seed {SEED}"
    )
    print()
    width = 26
    head = "".join(f"{p.name:>12}" for p in phases) + f"{'idle ms/s':>12}"
    print(f"{'per phase':<{width}}{head}")

    def line(label: str, cells: list[str]) -> None:
        print(f"{label:<{width}}" + "".join(f"{c:>12}" for c in cells))

    line("actions acked", [str(p.stats.acks) for p in phases])
    line("achieved /s", [f"{p.stats.acks / p.run_s:.1f}" for p in phases])
    cells = []
    for p in phases:
        lat = p.stats.latencies
        cells.append(f"{percentile(lat, 0.5):.0f}/{percentile(lat, 0.99):.0f}" if lat else "-")
    line("latency p50/p99 ms", cells)
    line(
        "errors / lost",
        [f"{sum(p.stats.errors.values())} / {p.stats.lost}" for p in phases],
    )
    line("games started/resigned", [f"{p.stats.games}/{p.stats.resigned}" for p in phases])
    cells = [f"{p.drain_s:.1f}" + (f" ({p.left} left)" if p.left else "") for p in phases]
    line("worker drain s", cells)
    print(f"{'server CPU ms per action':<{width}}")
    per_phase = [groups(p.cpu, database) for p in phases]
    idle = groups(background, database)
    for name in per_phase[0]:
        cells = [
            f"{g[name] * 1000 / max(1, p.stats.acks):.2f}"
            for g, p in zip(per_phase, phases, strict=True)
        ]
        line(f"  {name}", [*cells, f"{idle[name] * 1000 / background.elapsed:.1f}"])
    totals = [sum(g.values()) for g in per_phase]
    cells = [f"{t * 1000 / max(1, p.stats.acks):.2f}" for t, p in zip(totals, phases, strict=True)]
    line("  server, all of it", [*cells, f"{sum(idle.values()) * 1000 / background.elapsed:.1f}"])
    cells = [f"{p.cpu.client * 1000 / max(1, p.stats.acks):.2f}" for p in phases]
    line("  this client (the load)", cells)
    cells = [f"{machine_seconds(p.cpu) * 1000 / max(1, p.stats.acks):.2f}" for p in phases]
    line("  machine, all processes", cells)
    rows, seqs = db_check
    ok = rows == acks == seqs
    print(
        f"db check: {rows} Action rows, {acks} acks, attempts' seq sum {seqs}: "
        + ("ok" if ok else "MISMATCH")
    )
    for p in phases:
        if p.stats.first_error:
            print(f"first error ({p.name}): {p.stats.first_error[:300]}")
    for p in phases:
        tasks = ", ".join(f"{name} {n}" for name, n in p.tasks.most_common())
        print(f"worker tasks ({p.name}): {tasks or 'none'}")
    beat = sorted({t for t in TASK.findall(worker_log) if t in BEAT_TASKS})
    if beat:
        print(f"note    : beat's {', '.join(beat)} ran in the worker during the run")
    print()
    print("floor, measured now                       ms")
    print(
        f"  (1) psycopg transaction, client      {found.transaction_client:7.3f}"
        f"   (PostgreSQL backend {found.transaction_postgres:.3f} ms; "
        f"the run's {found.applied} writes again: lock, INSERT, UPDATE of a "
        f"{found.state_bytes / 1000:.1f} KB state on average, COMMIT)"
    )
    print(
        f"  (2) Redis PUBLISH, client            {found.publish:7.3f}"
        f"   ({found.event_bytes} B; redis-server {found.publish_redis:.3f} ms; "
        f"n={FLOOR_PUBLISHES})"
    )
    print(
        f"  (3) websocket echo, daphne           {found.echo:7.3f}"
        f"   ({found.event_bytes} B frame each way; n={FLOOR_FRAMES})"
    )
    print(
        f"  (4) engine apply                     {found.apply:7.4f}"
        f"   (mean over the run's {found.applied} actions, replayed)"
    )
    print(f"  floor = (1) + (2) + (3) + (4)        {found.total:7.3f}")
    print()
    print(f"{'against the floor':<36}{'ms/action':>10}{'× floor':>9}   target")
    for p, g in zip(phases, per_phase, strict=True):
        daphne = next(v for k, v in g.items() if k.startswith("daphne")) * 1000 / p.stats.acks
        ratio = daphne / found.total
        limit = TARGETS[p.name]
        verdict = "ok" if ratio <= limit else "MISSED"
        print(
            f"  {p.name + ': daphne':<34}{daphne:>10.2f}{ratio:>8.1f}×   "
            f"≤ {limit:g}× ({limit * found.total:.2f} ms)  {verdict}"
        )
    for p, g in zip(phases, per_phase, strict=True):
        pg = g["PostgreSQL backends"] * 1000 / p.stats.acks
        ratio = pg / found.transaction_postgres
        verdict = "ok" if pg <= PG_TARGET_MS else "MISSED"
        print(
            f"  {p.name + ': PostgreSQL backends':<34}{pg:>10.2f}{ratio:>8.1f}×   "
            f"≤ {PG_TARGET_MS:g} ms  {verdict}   (× the bare transaction's)"
        )


# --- the run ----------------------------------------------------------------------------------


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=30, help="players (30)")
    parser.add_argument("--rate", type=float, default=2.0, help="actions/s per player (2)")
    parser.add_argument("--seconds", type=float, default=40.0, help="load per transport (40)")
    args = parser.parse_args()
    if not 1 <= args.players <= 500:
        parser.error("--players must be 1 to 500")
    if not 0 < args.rate <= 20:
        parser.error("--rate must be above 0 and at most 20")
    if not 1 <= args.seconds <= 120:
        parser.error("--seconds must be 1 to 120")
    # A plain SIGTERM would skip the clean-up below; make it an exception instead.
    signal.signal(signal.SIGTERM, _terminated)
    began = time.monotonic()
    with Stack(database=DB_NAME, daphnes=2, prepare=False, extra=ENV) as stack:
        pg_version = postgres_version()
        background, phases, players = asyncio.run(
            load(stack, players_n=args.players, rate=args.rate, seconds=args.seconds)
        )
        ids = phases[0].stats.attempt_ids | phases[1].stats.attempt_ids
        acks = sum(p.stats.acks for p in phases)
        db_check = check_database(stack.database_url, ids)
        sample = typical_game(stack.database_url, [p.game for p in players if p.game])
        event = json.dumps({"type": "state", "v": sample["seq"], "game": sample})
        print("floor…", file=sys.stderr)
        found = floor(stack, ids, event, sample["id"])
        report(
            args=args,
            background=background,
            phases=phases,
            found=found,
            pg_version=pg_version,
            db_check=db_check,
            acks=acks,
            worker_log=stack.log("worker"),
        )
    print(f"\nwhole run {time.monotonic() - began:.0f} s")
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # the stack is stopped by its context manager
        sys.exit("stopped by Ctrl-C")
