"""Load figures for the game websocket (a benchmark, not a test).

    python bench/ws_load.py [--players 200] [--rate 2] [--seconds 30] [--daphnes 2]
                            [--target host:port ...]        # or: make bench-ws

Unless ``--target`` names running servers, it starts the production process set
with ``deploy/stack.py``: a fresh PostgreSQL database (``patience_wsload`` on
postgres@127.0.0.1:5432, dropped first if it exists), a Redis of its own,
``manage.py migrate``, ``--daphnes`` daphne processes, a Celery worker (which
verifies every game the players finish) and beat; players are spread over the
daphnes in turn.

Each player signs up over HTTP (``deploy/client.py``: cookies, ``X-CSRFToken``), starts a
practice game (``{"random": variant}`` over the four variants) and opens its game
socket (``games/websocket.md``). Then, open loop: every player owes one action
every 1/rate seconds on a fixed schedule (a random phase each), a legal one chosen
from the last ``game`` it received (a ``move`` from ``view.targets``, ``stock`` in
Easy Harp, now and then ``undo``), with ``seq`` = the game's ``seq``. One action
is in flight per player: one that falls due before the previous ack is sent when
that ack arrives, and its latency still counts from its due time. A game that is
won, stuck or long is resigned over the socket and replaced by a new one (HTTP,
new socket); that is not an action.

With ``--target host:port ...`` nothing is started or cleaned: the players sign up
on those servers (their ``ALLOWED_HOSTS`` must take the ``Origin``), and the
database check runs only if ``--database-url`` (default ``$DATABASE_URL``) names
their database.

It prints the actions per second achieved, the ack latency from the due time
(p50/p95/p99/max), errors (``error`` messages, socket failures), lost actions (no
ack within 10 s), whether PostgreSQL holds exactly one ``Action`` row per ack, and
the CPU used by each daphne, PostgreSQL, Redis and this client over the run, so
that the bottleneck shows. Target: 400 actions/s with p50 ≤ 10 ms, p99 ≤ 50 ms,
no error and nothing lost. Processes and database are cleaned up at the end,
also on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import contextlib
import json
import math
import os
import platform
import random
import re
import secrets
import signal
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from importlib.metadata import version
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import psycopg
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import WebSocketException
from websockets.typing import Origin

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from bench.measure import percentile
from deploy.client import Client
from deploy.processes import postgres_version
from deploy.stack import Stack
from games.engine import ALL_VARIANTS as VARIANTS  # the games' declarations

DB_NAME = "patience_wsload"
SERVER_ENV = {"REGISTER_RATE": "100000/hour", "LOG_LEVEL": "WARNING", "DB_POOL_SIZE": "10"}
"""Settings of the servers the bench starts, beside the production defaults."""
TARGET_RATE = 400.0
TARGET_MS = {"p50": 10.0, "p99": 50.0}
"""400 actions/s in all, ack latency median ≤ 10 ms, 99th percentile ≤ 50 ms."""
ACK_TIMEOUT_S = 10.0
"""An action with no ack after this long is lost."""
SETUP_LIMIT_S = 180.0
"""Signing up, starting games and connecting must be done by then."""
MAX_SECONDS = 120.0
MAX_PLAYERS = 2000
HTTP_THREADS = 8
"""HTTP calls (sign-up, new games) in flight at once; sockets open 32 at a time."""
CONNECTS = 32
MAX_GAME_ACTIONS = 200
"""Random play can wander for ever (Easy Harp's stock passes): resign and start anew."""
UNDO_CHANCE = 0.05
STOCK_CHANCE = 0.25
MAX_FAILURES = 5
"""A player whose socket or game cannot be mended this many times in a row stops."""
PASSWORD = "bench horse battery staple"
ROUTINE = re.compile(r'"logger": "(config\.access|games\.actions|games\.sockets)"')
"""A daphne's JSON log lines that are not news: one per request, action and socket."""
STATE_PREFIX = '{"type": "state"'
"""Broadcasts repeat what the ack said: skipped without parsing (json.dumps' spacing)."""


def check_database(url: str, attempt_ids: set[int]) -> tuple[int, int]:
    """(Action rows, sum of the attempts' ``seq``) over the attempts this run played."""
    ids = sorted(attempt_ids)
    with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as conn:
        rows = conn.execute(
            "SELECT count(*) FROM games_action WHERE attempt_id = ANY(%s)", (ids,)
        ).fetchone()
        seqs = conn.execute(
            "SELECT coalesce(sum(seq), 0) FROM games_attempt WHERE id = ANY(%s)", (ids,)
        ).fetchone()
    return int(rows[0] if rows else 0), int(seqs[0] if seqs else 0)


# --- CPU from /proc --------------------------------------------------------------------

TICK = os.sysconf("SC_CLK_TCK")


def proc_cpu(pid: int) -> tuple[str, float] | None:
    """(command name, utime + stime in seconds) of a process, or None if gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name = text[text.index("(") + 1 : text.rindex(")")]
    fields = text[text.rindex(")") + 2 :].split()
    return name, (int(fields[11]) + int(fields[12])) / TICK


def machine_cpu() -> tuple[float, float]:
    """(busy, total) seconds of all CPUs since boot, from /proc/stat."""
    values = [int(v) for v in Path("/proc/stat").read_text().split("\n")[0].split()[1:]]
    idle = values[3] + (values[4] if len(values) > 4 else 0)
    total = sum(values[:8])
    return (total - idle) / TICK, total / TICK


BACKEND = re.compile(r"^postgres: (?:[^:]+: )?\S+ (\S+) (?:\S+\(\d+\)|\[local\])")
"""A PostgreSQL backend's title: ``postgres: 15/main: <user> <database> <host>(<port>) …``."""


class CpuMeter:
    """Samples /proc twice a second: each daphne, the PostgreSQL backends of the
    benchmark's database, PostgreSQL's shared processes, the backends of other
    databases (someone else's load) and ``redis-server``. Backends come and go:
    each keeps its last reading."""

    def __init__(self, daphnes: dict[str, int], database: str | None) -> None:
        self.daphnes = daphnes
        self.database = database
        self.first: dict[int, float] = {}
        self.last: dict[int, float] = {}
        self.group: dict[int, str] = {}
        self.ignored: set[int] = set()
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.started = 0.0
        self.elapsed = 0.0
        self.client0 = 0.0
        self.client = 0.0
        self.machine0 = (0.0, 0.0)
        self.machine = (0.0, 0.0)

    def classify(self, pid: int, name: str) -> str | None:
        if name == "redis-server":
            return "redis-server"
        if name.startswith(("python", "celery")):
            # The Celery workers (both classes, issue 38) and their pool processes:
            # ``python -m celery -A config --quiet worker …`` (deploy/stack.py).
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ")
            except OSError:  # gone meanwhile
                return None
            worker = b"celery -A config" in command and b" worker " in command
            return "celery worker" if worker else None
        if name != "postgres":
            return None
        if self.database is None:
            return "postgres (all)"
        try:
            title = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except (OSError, UnicodeDecodeError):
            return None
        found = BACKEND.match(title)
        if found is None:
            return "postgres (shared)"
        if found.group(1) == self.database:
            return f"postgres ({self.database})"
        return "postgres (other dbs)"

    def _sample(self, baseline: bool) -> None:
        pids = {pid: name for name, pid in self.daphnes.items()}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                pids.setdefault(int(entry), "")
        for pid, daphne in pids.items():
            if pid in self.ignored:
                continue
            got = proc_cpu(pid)
            if got is None:
                continue
            if pid not in self.group:
                group = daphne or self.classify(pid, got[0])
                if group is None:
                    self.ignored.add(pid)
                    continue
                self.group[pid] = group
                # A process born during the run used all of its CPU in the run.
                self.first[pid] = got[1] if baseline else 0.0
            self.last[pid] = got[1]

    def _run(self) -> None:
        while not self.stop.wait(0.5):
            self._sample(baseline=False)

    def start(self) -> None:
        self._sample(baseline=True)
        self.started = time.monotonic()
        times = os.times()
        self.client0 = times.user + times.system
        self.machine0 = machine_cpu()
        self.thread.start()

    def finish(self) -> None:
        self._sample(baseline=False)
        self.elapsed = time.monotonic() - self.started
        times = os.times()
        self.client = times.user + times.system - self.client0
        busy, total = machine_cpu()
        self.machine = (busy - self.machine0[0], total - self.machine0[1])
        self.stop.set()
        self.thread.join(timeout=2)

    def used(self) -> dict[str, float]:
        """CPU seconds per group over the run."""
        out: Counter[str] = Counter()
        for pid, group in self.group.items():
            out[group] += self.last[pid] - self.first[pid]
        return dict(out)


# --- players -----------------------------------------------------------------------------


def options(view: dict[str, Any]) -> tuple[list[dict[str, Any]], bool]:
    """(the moves worth making, whether ``stock`` may be played)."""
    moves = [
        {"type": "move", "from": t["from"], "to": to, "count": t["count"]}
        for t in view["targets"]
        for to in t["to"]
    ]
    # Taking cards back off a foundation is legal but rarely what a player does.
    forward = [m for m in moves if not m["from"].startswith("f")] or moves
    stock = view["variant"].startswith("EH") and bool(view["piles"]["s"] or view["piles"]["w"])
    return forward, stock


def blocked(view: dict[str, Any]) -> bool:
    moves, stock = options(view)
    return (not moves and not stock) or (view["variant"].startswith("SH") and view["dead_end"])


def stuck(game: dict[str, Any]) -> bool:
    """Nothing left but giving up: blocked, with nothing to undo. (A blocked player
    with undo left does what the rules suggest: undoes and tries another way.)"""
    view = game["view"]
    return blocked(view) and not view.get("undo")


def choose_action(game: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    view = game["view"]
    if view.get("undo") and (blocked(view) or rng.random() < UNDO_CHANCE):
        return {"type": "undo"}
    moves, stock = options(view)
    if stock and (not moves or rng.random() < STOCK_CHANCE):
        return {"type": "stock"}
    return rng.choice(moves)


@dataclass
class Stats:
    latencies: list[float] = field(default_factory=list)
    """ms from each action's due time to its ack."""
    due: int = 0
    sent: int = 0
    acks: int = 0
    duplicates: int = 0
    unsent: int = 0
    """Actions that fell due but were not sent by the end (the player was behind)."""
    skipped: int = 0
    """Actions not sent because the player's socket or game could not be mended."""
    errors: Counter[str] = field(default_factory=Counter)
    lost: int = 0
    committed_unacked: int = 0
    """Actions lost or cut off whose commit a later snapshot showed."""
    stale: int = 0
    games: int = 0
    won: int = 0
    resigned: int = 0
    retired: int = 0
    first_error: str = ""
    attempt_ids: set[int] = field(default_factory=set)
    last_ack: float = 0.0


class Failed(Exception):
    """A socket or game that must be mended before the next action."""


class Lost(Failed):
    """No ack within ``ACK_TIMEOUT_S`` (counted as lost, not as an error)."""


class Player:
    def __init__(
        self,
        index: int,
        *,
        host: str,
        port: int,
        tag: str,
        stats: Stats,
        pool: concurrent.futures.ThreadPoolExecutor,
    ) -> None:
        self.index = index
        self.host, self.port = host, port
        self.name = f"ws{tag}{index}"
        self.http = Client(port, host)
        self.stats = stats
        self.pool = pool
        self.rng = random.Random(f"{tag}-{index}")
        self.ws: ClientConnection | None = None
        self.game: dict[str, Any] | None = None
        self.game_actions = 0
        self.games = 0
        self.in_flight: int | None = None
        """``seq`` of an action sent whose ack never came."""

    async def call(self, method: str, path: str, body: Any = None, status: int = 200) -> Any:
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(self.pool, self.http.expect, method, path, body, status)

    async def sign_up(self) -> None:
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(self.pool, self.http.sign_up, self.name, PASSWORD)

    async def new_game(self) -> None:
        variant = VARIANTS[(self.index + self.games) % len(VARIANTS)]
        self.games += 1
        self.game = await self.call("POST", "/api/games/", {"random": variant, "any": True}, 201)
        self.game_actions = 0
        self.stats.games += 1
        self.stats.attempt_ids.add(self.game["id"])
        await self.open_socket()

    async def open_socket(self) -> None:
        assert self.game is not None
        self.ws = await connect(
            f"ws://{self.host}:{self.port}/ws/games/{self.game['id']}/",
            origin=Origin(f"http://{self.host}:{self.port}"),
            additional_headers={"Cookie": f"sessionid={self.http.cookies['sessionid']}"},
            compression=None,
            ping_interval=None,
            open_timeout=ACK_TIMEOUT_S,
            close_timeout=2,
            max_size=2**22,
        )
        async with asyncio.timeout(ACK_TIMEOUT_S):
            first = json.loads(await self.ws.recv())
        if first.get("type") != "snapshot":
            raise Failed(f"the socket opened with {first.get('type')!r}, not a snapshot")
        self.take_snapshot(first)

    def take_snapshot(self, message: dict[str, Any]) -> None:
        self.game = message["game"]
        if self.in_flight is not None and self.game["seq"] > self.in_flight:
            self.stats.committed_unacked += 1
        self.in_flight = None

    async def close_socket(self) -> None:
        ws, self.ws = self.ws, None
        if ws is not None:
            with contextlib.suppress(WebSocketException, OSError):
                await ws.close()

    async def reply(self, seq: int | None) -> dict[str, Any]:
        """The ack for ``seq`` (``None``: a resignation's), an error, or a snapshot."""
        assert self.ws is not None
        while True:
            text = await self.ws.recv()
            if isinstance(text, str) and text.startswith(STATE_PREFIX):
                continue
            message = json.loads(text)
            kind = message.get("type")
            if kind == "ack":
                if message.get("seq") == seq:
                    return message
                self.stats.stale += 1  # an ack meant for an earlier socket's action
            elif kind in ("error", "snapshot"):
                return message

    async def resync(self) -> None:
        """After an error message: ask for the state again and go on from it."""
        assert self.ws is not None
        await self.ws.send('{"type": "snapshot"}')
        async with asyncio.timeout(ACK_TIMEOUT_S):
            while True:
                message = await self.reply(-1)
                if message["type"] == "snapshot":
                    self.take_snapshot(message)
                    return
                self.stats.errors[message.get("error", {}).get("code", "?")] += 1

    async def mend(self) -> None:
        """Before an action: a socket again (the same game if it is on), a game that
        can go on. Not counted as an action."""
        if self.ws is None:
            if self.game is None or self.game["status"] != "playing":
                await self.new_game()
            else:
                await self.open_socket()
        await self.replace_if_over()

    async def replace_if_over(self) -> None:
        """A game won, stuck or long is resigned (over the socket) and replaced;
        some deals are stuck from the start, so this may take a few games."""
        for _ in range(MAX_FAILURES):
            assert self.game is not None and self.ws is not None
            if self.game["status"] == "playing":
                if not stuck(self.game) and self.game_actions < MAX_GAME_ACTIONS:
                    return
                await self.ws.send('{"type": "resign"}')
                async with asyncio.timeout(ACK_TIMEOUT_S):
                    message = await self.reply(None)
                if message["type"] == "error":
                    self.stats.errors[message["error"].get("code", "?")] += 1
                self.stats.resigned += 1
            elif self.game["status"] == "won":
                self.stats.won += 1
            await self.close_socket()
            await self.new_game()
        raise Failed(f"{MAX_FAILURES} games in a row could not be played")

    async def act(self, due: float) -> None:
        loop = asyncio.get_running_loop()
        assert self.game is not None and self.ws is not None
        seq = self.game["seq"]
        action = choose_action(self.game, self.rng)
        await self.ws.send(json.dumps({"seq": seq, "action": action}))
        self.stats.sent += 1
        self.in_flight = seq
        try:
            async with asyncio.timeout(ACK_TIMEOUT_S):
                message = await self.reply(seq)
        except TimeoutError:
            self.stats.lost += 1
            raise Lost(f"no ack for seq {seq}") from None
        got = loop.time()
        if message["type"] == "ack":
            self.in_flight = None
            self.stats.latencies.append((got - due) * 1000)
            self.stats.last_ack = got
            if message["duplicate"]:
                self.stats.duplicates += 1
            else:
                self.stats.acks += 1
            self.game = message["game"]
            self.game_actions += 1
            return
        error = message.get("error", {})
        self.stats.errors[error.get("code", message["type"])] += 1
        self.stats.first_error = self.stats.first_error or f"{action} at seq {seq}: {error}"
        await self.resync()

    async def play(self, start: float, end: float, period: float) -> None:
        """Actions due at start + phase + k·period while before ``end``."""
        loop = asyncio.get_running_loop()
        due = start + self.rng.random() * period
        failures = 0
        while due < end:
            wait = due - loop.time()
            if wait > 0:
                await asyncio.sleep(wait)
            elif loop.time() >= end:
                # Behind schedule at the end: what is still due is not sent.
                behind = math.ceil((end - due) / period)
                self.stats.unsent += behind
                self.stats.due += behind
                return
            self.stats.due += 1
            sent = self.stats.sent
            try:
                if self.ws is None:
                    await self.mend()
                await self.act(due)
                if due + period < end:  # the next game is set up before the next action
                    await self.replace_if_over()
                failures = 0
            except Exception as exc:  # a socket failure, a refused HTTP call, a lost ack
                if not isinstance(exc, Lost):
                    self.stats.errors[f"failure: {type(exc).__name__}"] += 1
                    self.stats.first_error = (
                        self.stats.first_error or f"{type(exc).__name__}: {exc}"
                    )
                if self.stats.sent == sent:
                    self.stats.skipped += 1
                await self.close_socket()
                failures += 1
                if failures >= MAX_FAILURES:
                    self.stats.retired += 1
                    return
            due += period


@dataclass
class Result:
    stats: Stats
    setup_s: float
    run_s: float
    cpu: CpuMeter


async def load(
    targets: list[tuple[str, int]],
    *,
    players_n: int,
    rate: float,
    seconds: float,
    daphne_pids: dict[str, int],
    database: str | None,
) -> Result:
    loop = asyncio.get_running_loop()
    stats = Stats()
    tag = secrets.token_hex(3)
    pool = concurrent.futures.ThreadPoolExecutor(HTTP_THREADS, thread_name_prefix="http")
    players = []
    for i in range(players_n):
        host, port = targets[i % len(targets)]
        players.append(Player(i, host=host, port=port, tag=tag, stats=stats, pool=pool))
    connects = asyncio.Semaphore(CONNECTS)

    async def set_up(player: Player) -> Player | None:
        try:
            await player.sign_up()
            async with connects:
                await player.new_game()
                await player.replace_if_over()
        except Exception as exc:  # the run goes on with the others; the report says so
            stats.errors[f"setup: {type(exc).__name__}"] += 1
            stats.first_error = stats.first_error or f"{type(exc).__name__}: {exc}"
            return None
        return player

    try:
        began = time.monotonic()
        async with asyncio.timeout(SETUP_LIMIT_S):
            ready = [p for p in await asyncio.gather(*(set_up(p) for p in players)) if p]
        setup_s = time.monotonic() - began
        print(
            f"set up {len(ready)} of {players_n} players in {setup_s:.1f} s; running…",
            file=sys.stderr,
        )
        cpu = CpuMeter(daphne_pids, database)
        cpu.start()
        start = loop.time() + 0.1
        end = start + seconds
        try:
            async with asyncio.timeout(seconds + ACK_TIMEOUT_S * 3 + 10):
                await asyncio.gather(*(p.play(start, end, 1 / rate) for p in ready))
        finally:
            cpu.finish()
        run_s = (max(stats.last_ack, end) if stats.acks else end) - start
        return Result(stats, setup_s, run_s, cpu)
    finally:
        await asyncio.gather(*(p.close_socket() for p in players), return_exceptions=True)
        for player in players:
            player.http.close()
        pool.shutdown(wait=False, cancel_futures=True)


# --- the run ---------------------------------------------------------------------------


def report(
    result: Result,
    *,
    args: argparse.Namespace,
    targets: list[tuple[str, int]],
    pg_version: str | None,
    db_check: tuple[int, int] | None,
) -> None:
    stats, cpu = result.stats, result.cpu
    print(f"machine : {platform.platform()}, {os.cpu_count()} CPUs, {platform.machine()}")
    print(
        f"python  : {platform.python_implementation()} {platform.python_version()}, "
        f"websockets {version('websockets')}"
    )
    if pg_version:
        print(f"postgres: {pg_version.split(',', maxsplit=1)[0]}")
    servers = ", ".join(f"{h}:{p}" for h, p in targets)
    if args.target:
        print(f"server  : --target {servers} (not started here)")
    else:
        print(
            f"server  : {len(targets)} daphne ({servers}), a Celery worker and beat "
            "(deploy/stack.py), DB_POOL_SIZE=10"
        )
    offered = args.players * args.rate
    print(
        f"load    : {args.players} players × {args.rate:g} actions/s = {offered:g} actions/s "
        f"offered, for {args.seconds:g} s (set up in {result.setup_s:.1f} s)"
    )
    print(
        f"actions : {stats.due} due, {stats.sent} sent, {stats.acks} acked"
        f" ({stats.duplicates} duplicate), {stats.unsent} still due at the end, "
        f"{stats.skipped} skipped"
    )
    print(
        f"games   : {stats.games} started, {stats.won} won, {stats.resigned} resigned "
        f"(stuck or long), {stats.retired} players gave up"
    )
    achieved = stats.acks / result.run_s if result.run_s > 0 else 0.0
    print(f"rate    : {achieved:.1f} actions/s achieved (acks over {result.run_s:.1f} s)")
    lat = stats.latencies
    if lat:
        p50, p95, p99 = (percentile(lat, q) for q in (0.5, 0.95, 0.99))
        print(
            f"latency : ms from due time to ack: p50 {p50:.1f}  p95 {p95:.1f}  "
            f"p99 {p99:.1f}  max {max(lat):.1f}  (n={len(lat)})"
        )
    else:
        print("latency : no ack received")
    errors = sum(stats.errors.values())
    detail = ", ".join(f"{k} {v}" for k, v in stats.errors.most_common())
    print(f"errors  : {errors}" + (f" ({detail})" if detail else ""))
    if stats.first_error:
        print(f"          first failure: {stats.first_error[:300]}")
    print(
        f"lost    : {stats.lost} (no ack within {ACK_TIMEOUT_S:g} s); committed but "
        f"unacknowledged: {stats.committed_unacked}; stale acks: {stats.stale}"
    )
    if db_check is None:
        print("db check: skipped (no database URL for --target; pass --database-url)")
    else:
        rows, seqs = db_check
        ok = rows == stats.acks == seqs
        print(
            f"db check: {rows} Action rows, {stats.acks} acks, attempts' seq sum {seqs}: "
            + ("ok" if ok else "MISMATCH")
        )
    print(f"cpu     : over the {cpu.elapsed:.1f} s run, % of one core")
    used = cpu.used()
    groups = [*cpu.daphnes, *sorted(g for g in used if g.startswith("postgres")), "redis-server"]
    for name in groups:
        if name in used:
            label = f"{name} (pid {cpu.daphnes[name]})" if name in cpu.daphnes else name
            print(f"  {label:<26}{100 * used[name] / cpu.elapsed:6.0f} %")
    print(f"  {'this client':<26}{100 * cpu.client / cpu.elapsed:6.0f} %")
    busy, total = cpu.machine
    if total:
        cores = os.cpu_count() or 1
        machine = cores * busy / total * cpu.elapsed  # CPU seconds of all processes
        other = machine - sum(used.values()) - cpu.client
        print(f"  {'anything else':<26}{100 * max(0.0, other) / cpu.elapsed:6.0f} %")
        print(f"  {'machine':<26}{100 * machine / cpu.elapsed:6.0f} % of {cores * 100} %")
    p50 = percentile(lat, 0.5) if lat else float("inf")
    p99 = percentile(lat, 0.99) if lat else float("inf")
    checks = [
        (f"{TARGET_RATE:g} actions/s", f"{achieved:.1f}", achieved >= TARGET_RATE * 0.99),
        (f"p50 ≤ {TARGET_MS['p50']:g} ms", f"{p50:.1f} ms", p50 <= TARGET_MS["p50"]),
        (f"p99 ≤ {TARGET_MS['p99']:g} ms", f"{p99:.1f} ms", p99 <= TARGET_MS["p99"]),
        ("0 errors", str(errors), errors == 0),
        ("0 lost", str(stats.lost), stats.lost == 0),
    ]
    for name, got, ok in checks:
        print(f"target  : {name:<18}{got:>12}  {'ok' if ok else 'MISSED'}")


def parse_target(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    if not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"{text!r} is not host:port")
    return host, int(port)


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200, help="players (200)")
    parser.add_argument("--rate", type=float, default=2.0, help="actions/s per player (2)")
    parser.add_argument("--seconds", type=float, default=30.0, help="length of the load (30)")
    parser.add_argument("--daphnes", type=int, default=2, help="daphne processes (2)")
    parser.add_argument(
        "--target", type=parse_target, nargs="+", help="host:port of running servers instead"
    )
    parser.add_argument(
        "--database-url",
        default=os.environ.get("DATABASE_URL"),
        help="with --target: the servers' database, for the check (default $DATABASE_URL)",
    )
    args = parser.parse_args()
    if not 1 <= args.players <= MAX_PLAYERS:
        parser.error(f"--players must be 1 to {MAX_PLAYERS}")
    if not 0 < args.rate <= 50:
        parser.error("--rate must be above 0 and at most 50")
    if not 1 <= args.seconds <= MAX_SECONDS:
        parser.error(f"--seconds must be 1 to {MAX_SECONDS:g}")
    if not 1 <= args.daphnes <= 8:
        parser.error("--daphnes must be 1 to 8")
    # A plain SIGTERM would skip the clean-up below; make it an exception instead.
    signal.signal(signal.SIGTERM, _terminated)
    stack: Stack | None = None
    pg_version: str | None = None
    try:
        if args.target:
            targets: list[tuple[str, int]] = args.target
            db_url = args.database_url
            pids: dict[str, int] = {}
        else:
            # The production process set (deploy/stack.py): N daphnes, a Celery
            # worker and beat, PostgreSQL, Redis. The worker verifies every game
            # the players resign, as in production.
            stack = Stack(database=DB_NAME, daphnes=args.daphnes, prepare=False, extra=SERVER_ENV)
            stack.start()
            pg_version = postgres_version()
            targets = [("127.0.0.1", port) for port in stack.ports]
            db_url = stack.database_url
            pids = {f"daphne {n + 1}": p.pid for n, p in enumerate(stack.daphnes) if p}
            if stack.worker is not None:
                pids["celery worker"] = stack.worker.pid
        database = (urlsplit(db_url).path.lstrip("/") or None) if db_url else None
        result = asyncio.run(
            load(
                targets,
                players_n=args.players,
                rate=args.rate,
                seconds=args.seconds,
                daphne_pids=pids,
                database=database,
            )
        )
        db_check = check_database(db_url, result.stats.attempt_ids) if db_url else None
        report(result, args=args, targets=targets, pg_version=pg_version, db_check=db_check)
        for n in range(len(stack.daphnes) if stack else 0):
            lines = stack.log(f"daphne{n + 1}").split("\n") if stack else []
            log = [line for line in lines if line and not ROUTINE.search(line)]
            if log:
                tracebacks = sum('"exception": "Traceback' in line for line in log)
                print(
                    f"\ndaphne {n + 1} logged {len(log)} lines ({tracebacks} tracebacks); "
                    "the last:\n" + "\n".join(log[-12:])
                )
    finally:
        if stack is not None:
            stack.close()
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:  # cleaned up already (main's finally)
        sys.exit("stopped by Ctrl-C")
