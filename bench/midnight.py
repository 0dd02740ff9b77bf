"""The midnight rush (issue 38, deliverable 7; a benchmark, not a test).

    python bench/midnight.py [--players 200] [--actions 10] [--rate 1]
                             [--analyses 1000] [--reminders 100]   # or: make bench-midnight

At 00:00 UTC every player opens the new dailies at once, the reminders go out
and yesterday's analyses run. This starts the production process set with
``deploy/stack.py`` (a fresh PostgreSQL database ``patience_midnight``, a Redis of
its own, 2 daphnes, the interactive worker and the heavy worker; no beat: the
bench fires the midnight jobs itself, at its simulated 00:00) with the mail
going out over SMTP to a real local server (``tests/support/smtp.py``), and:

1. **Yesterday** (``--yesterday``, this script run in a process of the stack's
   environment): yesterday's daily deals prepared, ``--analyses``/4 players each
   play a greedy line (``bench/postmortem.py``'s ``lost_line``, at most
   ``YESTERDAY_ACTIONS`` actions) on each of them through the services
   (``attempt_start``, ``attempt_apply_action``, ``attempt_resign``, with the
   services' ``utc_today`` set to yesterday), so that ``--analyses`` finished
   games wait for their post-mortem (what their finish queues — replay check,
   review, dead-end proofs — ran yesterday: not queued, the checks marked
   done); ``--reminders`` players with a verified
   address and a mail reminder due at 00:00 UTC (``accounts/reminders.py``); one
   more player with a verified address, for the reset mail.
2. ``--players`` players sign up over HTTP (they were signed in before midnight);
   today's deals are dealt (the heavy worker, queued at start) and every queue
   is drained.
3. **Midnight**: ``after_the_day`` is sent as beat sends it; once its
   ``analyse_day`` tasks have queued the analyses on the heavy queue, the clock
   starts (T0 = the simulated 00:00): ``send_reminders`` is sent, and every player
   at once ``POST /api/games/ {"daily": variant}`` (a variant each, in turn),
   opens the game's socket and waits for its snapshot — the time to the first
   board is T0 to that frame — then plays ``--actions`` actions at ``--rate``
   a second, open loop (``bench/ws_load.py``'s player: legal actions from the
   last ``game``, the ack latency from each action's due time). A stuck game is
   resigned and the next variant's daily opened, as a player would.
   ``RESET_AT_S`` after T0 a password reset is asked for over HTTP.

It prints the first board's and the acks' p50/p99, each reminder's delay from
T0 (when it was due) to its arrival at the SMTP server, the reset mail's from
its request (with how many analyses were queued then), the analyses done over
the burst, and the CPU of every process from /proc (``bench/ws_load.py``'s
meter; each worker with its pool on a line of its own) over the burst: in all,
as a share of one core, and per acknowledged action.

It exits 1, saying why, when a player's socket did not open or gave no board,
when no action was acknowledged, or when a mail did not arrive within
``MAIL_WAIT_S``: figures without them measure nothing. Processes and database
are cleaned up at the end, also on Ctrl-C or SIGTERM.
"""

from __future__ import annotations

import argparse
import asyncio
import concurrent.futures
import datetime as dt
import json
import math
import os
import random
import signal
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

import psycopg
from celery import Celery

from bench.measure import drain, machine, percentile
from bench.ws_load import (
    HTTP_THREADS,
    SERVER_ENV,
    CpuMeter,
    Failed,
    Player,
    Stats,
    check_database,
)
from deploy.processes import QUEUES, ROOT, postgres_version
from deploy.stack import Stack
from games.engine import ALL_VARIANTS as VARIANTS

DB_NAME = "patience_midnight"
ENV = {
    **SERVER_ENV,
    "ACTION_RATE": "1000000/min",
    "GAME_RATE": "1000000/min",
    # Every player comes from 127.0.0.1: no cap on one address's sockets.
    "WS_MAX_PER_ADDRESS": "0",
    "EMAIL_BACKEND": "django.core.mail.backends.smtp.EmailBackend",
    "EMAIL_HOST": "127.0.0.1",
    "EMAIL_USE_TLS": "0",
}
"""The servers' settings beside the production defaults (``EMAIL_PORT``: the
SMTP server's, added at the start)."""
YESTERDAY_ACTIONS = 5
"""Actions of a greedy line a yesterday's game plays at most before it resigns
(a Seahaven line usually reaches its dead end first)."""
RESET_AT_S = 2.0
"""The reset is asked for this long after T0: in the rush, the reminders going out."""
MAIL_WAIT_S = 90.0
"""How long after the burst the mails may still arrive."""
SETTLE_S = 300.0
"""How long today's deals and the set-up's replay checks may take to be done."""
ANALYSES_QUEUED_S = 60.0
"""How long ``after_the_day`` may take to queue the analyses."""
PASSWORD = "bench horse battery staple"


# --- yesterday (run in a process of the stack's environment) ------------------------------


def yesterday(*, analyses: int, reminders: int, tag: str) -> dict[str, Any]:
    """Yesterday's deals, games that wait for their post-mortem, players with a
    mail reminder due at 00:00 UTC, and the reset's player. Returns what the
    bench needs to know of them."""
    import django

    django.setup()
    from unittest import mock

    from accounts.models import Reminder, User
    from bench.postmortem import lost_line
    from games import dailies, followups, services
    from games.models import Attempt
    from kit.commits import Followups

    today = dailies.utc_today()
    day = today - dt.timedelta(days=1)
    began = time.monotonic()
    deals = dailies.daily_deals_prepare(start=day, days=1)
    prepared = time.monotonic() - began
    rng = random.Random(f"midnight-{day}")
    games = actions = 0
    # The services' clock says yesterday: a ranked game of yesterday's deal is
    # opened and played as it was then. What its finish queues (the replay check,
    # the review, what the player knew, dead-end proofs) ran yesterday: not queued
    # now, the checks marked done below.
    with (
        mock.patch.object(services, "utc_today", lambda: day),
        mock.patch.object(Followups, "queue", lambda *args: None),
        mock.patch.object(followups, "queue_now", lambda *args: None),
        mock.patch.object(followups, "queue_proof", lambda *args: None),
    ):
        for n in range(math.ceil(analyses / len(deals))):
            player = User.objects.create_user(f"mn{tag}y{n}")  # no password: never signs in
            for daily in deals:
                attempt, _new = services.attempt_start(player=player, daily=daily.variant)
                line = None
                while line is None:  # a line that happens to win is played again
                    line = lost_line(daily.deal.code, rng)
                for seq, action in enumerate(line[0][:YESTERDAY_ACTIONS]):
                    applied = services.attempt_apply_action(
                        attempt_id=attempt.pk, player=player, seq=seq, action=action
                    )
                    actions += 1
                if not applied.attempt.finished:
                    services.attempt_resign(attempt_id=attempt.pk, player=player)
                games += 1
    Attempt.objects.filter(daily__in=deals, verified__isnull=True).update(verified=True)
    played = time.monotonic() - began - prepared
    midnight = dt.datetime.combine(today, dt.time(0), dt.UTC)
    mailed = []
    for n in range(reminders):
        email = f"mn{tag}r{n}@example.com"
        user = User.objects.create_user(f"mn{tag}r{n}", email=email, email_verified=True)
        # As the player chose it before today: today's reminder due at 00:00 UTC.
        Reminder.objects.create(user=user, channel=Reminder.Channel.EMAIL, next_at=midnight)
        mailed.append(email)
    reset = f"mn{tag}reset"
    User.objects.create_user(reset, email=f"{reset}@example.com", email_verified=True)
    return {
        "day": day.isoformat(),
        "games": games,
        "actions": actions,
        "prepare_s": prepared,
        "play_s": played,
        "reminded": mailed,
        "reset": reset,
        "reset_email": f"{reset}@example.com",
    }


async def run_yesterday(stack: Stack, args: argparse.Namespace, tag: str) -> dict[str, Any]:
    """``yesterday`` in a process of the stack's environment (its settings, its
    database and broker)."""
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(Path(__file__).resolve()),
        "--yesterday",
        "--analyses",
        str(args.analyses),
        "--reminders",
        str(args.reminders),
        "--tag",
        tag,
        cwd=ROOT,
        env=stack.env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    try:
        async with asyncio.timeout(900):
            out, err = await process.communicate()
    finally:
        if process.returncode is None:
            process.kill()
    if process.returncode != 0:
        raise RuntimeError(f"yesterday's set-up failed:\n{err.decode()[-3000:]}")
    return dict(json.loads(out.decode().strip().splitlines()[-1]))


# --- the mail -----------------------------------------------------------------------------


class Arrivals:
    """When each mail reached the SMTP server (``Mailbox.messages``, in order):
    a thread woken by each arrival stamps it."""

    def __init__(self, mailbox: Any) -> None:
        self.mailbox = mailbox
        self.times: list[float] = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        with self.mailbox.arrived:
            while not self.stop.is_set():
                while len(self.times) < len(self.mailbox.messages):
                    self.times.append(time.monotonic())
                self.mailbox.arrived.wait(0.2)

    def to(self, address: str) -> list[float]:
        """Arrival times of the mails to ``address``."""
        messages = list(self.mailbox.messages)
        return [
            t
            for t, m in zip(self.times, messages, strict=False)
            if address.lower() in str(m["To"]).lower()
        ]

    def close(self) -> None:
        self.stop.set()
        with self.mailbox.arrived:
            self.mailbox.arrived.notify_all()
        self.thread.join(timeout=2)


# --- the players ----------------------------------------------------------------------------


class Rusher(Player):
    """A ``bench/ws_load.py`` player who, at midnight, opens today's dailies (a
    variant each, in turn; a practice game once all four are played)."""

    def __init__(self, index: int, **kwargs: Any) -> None:
        super().__init__(index, **kwargs)
        self.board_at: float | None = None
        self.failed = ""

    async def new_game(self) -> None:
        loop = asyncio.get_running_loop()
        variant = VARIANTS[(self.index + self.games) % len(VARIANTS)]
        body = {"daily": variant} if self.games < len(VARIANTS) else {"random": variant}
        self.games += 1
        answer = await loop.run_in_executor(
            self.pool, self.http.request, "POST", "/api/games/", body
        )
        if answer.status not in (200, 201):
            raise Failed(f"POST /api/games/ {body}: {answer.status} {answer.body}")
        self.game = answer.body
        self.game_actions = 0
        self.stats.games += 1
        self.stats.attempt_ids.add(self.game["id"])
        await self.open_socket()
        if self.board_at is None:
            self.board_at = loop.time()

    async def rush(self, actions: int, rate: float) -> None:
        try:
            await self.new_game()
            await self.replace_if_over()
        except Exception as exc:  # counted and said: the others go on
            self.failed = f"{type(exc).__name__}: {exc}"
            await self.close_socket()
            return
        assert self.board_at is not None
        await self.play(self.board_at, self.board_at + actions / rate, 1 / rate)
        await self.close_socket()


class Meter(CpuMeter):
    """``bench/ws_load.py``'s meter with each class of worker (its main process
    and its pool) on a line of its own."""

    def classify(self, pid: int, name: str) -> str | None:
        if name.startswith(("python", "celery")):
            try:
                command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                return None
            if b"celery" in command and b"worker" in command and b"-Q" in command:
                queues = command[command.index(b"-Q") + 1].decode()
                return next((f"worker ({k})" for k, v in QUEUES.items() if v == queues), None)
            return None
        return super().classify(pid, name)


# --- midnight ---------------------------------------------------------------------------------


@dataclass
class Rush:
    players: list[Rusher]
    stats: Stats
    cpu: Meter
    burst_s: float
    after_the_day_s: float
    analyses_queued: int
    reset_sent: float = 0.0
    reset_answered: float = 0.0
    queued_at_reset: int = 0
    analysed: int = 0
    heavy_left: int = 0
    t0: float = 0.0
    mail_times: dict[str, list[float]] = field(default_factory=dict)


def count(url: str, sql: str, *params: Any) -> int:
    with psycopg.connect(url.replace("postgres://", "postgresql://", 1)) as conn:
        row = conn.execute(sql, params).fetchone()
    return int(row[0]) if row else 0


async def settle(stack: Stack) -> float:
    """Today's deals dealt and every queue empty (the set-up's replay checks)."""
    began = time.monotonic()
    today = dt.datetime.now(dt.UTC).date()
    dealt = "SELECT count(*) FROM games_dailydeal WHERE date = %s"
    while count(stack.database_url, dealt, today) < len(VARIANTS):
        if time.monotonic() - began > SETTLE_S:
            raise RuntimeError(f"today's daily deals are not dealt after {SETTLE_S:g} s")
        await asyncio.sleep(0.5)
    client = stack.redis_client()
    try:
        _waited, left = await drain(client, SETTLE_S)
    finally:
        client.close()
    if left:
        raise RuntimeError(f"{left} tasks still queued after {SETTLE_S:g} s")
    return time.monotonic() - began


async def midnight(
    stack: Stack, args: argparse.Namespace, arrivals: Arrivals, tag: str
) -> tuple[dict[str, Any], Rush]:
    loop = asyncio.get_running_loop()
    assert stack.redis is not None
    broker = stack.redis_client()
    celery = Celery(broker=stack.redis_url)
    sign_ups = concurrent.futures.ThreadPoolExecutor(HTTP_THREADS, thread_name_prefix="signup")
    # One thread a player: every one asks for its daily at the same moment.
    pool = concurrent.futures.ThreadPoolExecutor(args.players, thread_name_prefix="http")
    stats = Stats()
    players = [
        Rusher(
            i,
            host="127.0.0.1",
            port=stack.ports[i % len(stack.ports)],
            tag=tag,
            stats=stats,
            pool=pool,
        )
        for i in range(args.players)
    ]
    try:
        began = time.monotonic()
        making = asyncio.create_task(run_yesterday(stack, args, tag))
        await asyncio.gather(
            *(loop.run_in_executor(sign_ups, p.http.sign_up, p.name, PASSWORD) for p in players)
        )
        signed = time.monotonic() - began
        print(f"signed up {args.players} players in {signed:.1f} s", file=sys.stderr)
        made = await making
        print(
            f"yesterday: {made['games']} games made in {time.monotonic() - began:.0f} s",
            file=sys.stderr,
        )
        settled = await settle(stack)
        print(f"today's deals dealt, queues empty after {settled:.1f} s", file=sys.stderr)
        # 00:04 in production (after close_stale_attempts): the post-mortems queued,
        # every one of yesterday's games but those the heavy worker holds already.
        began = time.monotonic()
        celery.send_task("games.tasks.after_the_day", queue="celery")
        analyses = "SELECT count(*) FROM games_analysis"
        while int(broker.llen("heavy")) + count(stack.database_url, analyses) < made["games"] - 1:
            if time.monotonic() - began > ANALYSES_QUEUED_S:
                break
            await asyncio.sleep(0.1)
        after_the_day_s = time.monotonic() - began
        analyses_queued = int(broker.llen("heavy"))
        analysed0 = count(stack.database_url, analyses)
        pids = {f"daphne {n + 1}": p.pid for n, p in enumerate(stack.daphnes) if p}
        pids["redis (the stack's)"] = stack.redis.pid
        cpu = Meter(pids, stack.database)
        print(
            f"midnight: {analyses_queued} analyses queued; {args.players} players, "
            f"{len(made['reminded'])} reminders due…",
            file=sys.stderr,
        )
        cpu.start()
        t0 = loop.time()
        rush = Rush(players, stats, cpu, 0.0, after_the_day_s, analyses_queued, t0=t0)
        celery.send_task("accounts.tasks.send_reminders", queue="celery")

        async def reset() -> None:
            await asyncio.sleep(RESET_AT_S)
            rush.queued_at_reset = int(broker.llen("heavy"))
            rush.reset_sent = loop.time()
            body = {"username": made["reset"]}
            await loop.run_in_executor(
                sign_ups, players[0].http.expect, "POST", "/api/auth/password/reset/", body, 202
            )
            rush.reset_answered = loop.time()

        resetting = asyncio.create_task(reset())
        limit = 60 + args.actions / args.rate * 3
        async with asyncio.timeout(limit):
            await asyncio.gather(*(p.rush(args.actions, args.rate) for p in players))
        rush.burst_s = loop.time() - t0
        cpu.finish()
        await resetting
        rush.analysed = count(stack.database_url, analyses) - analysed0
        rush.heavy_left = int(broker.llen("heavy"))
        # The mails still on their way.
        expected = [*made["reminded"], made["reset_email"]]
        deadline = time.monotonic() + MAIL_WAIT_S
        while time.monotonic() < deadline and not all(arrivals.to(a) for a in expected):
            await asyncio.sleep(0.2)
        rush.mail_times = {a: arrivals.to(a) for a in expected}
        return made, rush
    finally:
        await asyncio.gather(*(p.close_socket() for p in players), return_exceptions=True)
        for player in players:
            player.http.close()
        pool.shutdown(wait=False, cancel_futures=True)
        sign_ups.shutdown(wait=False, cancel_futures=True)
        broker.close()


# --- the report -----------------------------------------------------------------------------


def ms(values: list[float], q: float) -> str:
    return f"{percentile(values, q):.0f}" if values else "-"


def report(
    args: argparse.Namespace, made: dict[str, Any], rush: Rush, stack: Stack, load: float
) -> list[str]:
    """Prints the figures; returns why the run measured nothing (empty: it did)."""
    stats, cpu = rush.stats, rush.cpu
    boards = [(p.board_at - rush.t0) * 1000 for p in rush.players if p.board_at is not None]
    failed = [p for p in rush.players if p.board_at is None]
    print(f"\n# bench/midnight.py — {dt.datetime.now(dt.UTC):%Y-%m-%d %H:%M} UTC on {machine()}")
    print(
        f"PostgreSQL {postgres_version().split(',', maxsplit=1)[0]}; 2 daphnes, the "
        "interactive worker (interactive, celery) and the heavy worker (heavy, fairplay), "
        "one process each; mail over SMTP to a local aiosmtpd"
    )
    print(
        f"yesterday: {made['games']} games on {made['day']}'s 4 dailies ({made['actions']} "
        f"actions, played through the services in {made['play_s']:.0f} s)"
    )
    print(
        f"midnight: after_the_day queued {rush.analyses_queued} analyses in "
        f"{rush.after_the_day_s:.1f} s; then at T0 send_reminders "
        f"({len(made['reminded'])} due) and {args.players} players at once, "
        f"{args.actions} actions each at {args.rate:g}/s"
    )
    print()
    print(f"burst          : {rush.burst_s:.1f} s from T0 to the last player's last ack")
    print(
        f"first board    : {len(boards)} of {args.players} players; ms from T0: "
        f"p50 {ms(boards, 0.5)}, p99 {ms(boards, 0.99)}, max {max(boards, default=0):.0f}"
    )
    lat = stats.latencies
    print(
        f"acks           : {stats.acks} of {stats.due} due ({stats.lost} lost, "
        f"{sum(stats.errors.values())} errors); ms from due time: p50 {ms(lat, 0.5)}, "
        f"p95 {ms(lat, 0.95)}, p99 {ms(lat, 0.99)}, max {max(lat, default=0):.0f}"
    )
    if stats.errors:
        print(f"                 errors: {dict(stats.errors)}; first: {stats.first_error[:200]}")
    print(f"games          : {stats.games} opened, {stats.resigned} resigned (stuck)")
    rows, seqs = check_database(stack.database_url, stats.attempt_ids)
    ok = rows == stats.acks == seqs
    print(
        f"db check       : {rows} Action rows, {stats.acks} acks, seq sum {seqs}: "
        + ("ok" if ok else "MISMATCH")
    )
    reminded = [
        (times[0] - rush.t0) * 1000 for a in made["reminded"] if (times := rush.mail_times.get(a))
    ]
    print(
        f"reminder mails : {len(reminded)} of {len(made['reminded'])} arrived; s from T0 "
        f"(due): p50 {percentile(reminded, 0.5) / 1000 if reminded else float('nan'):.1f}, "
        f"p99 {percentile(reminded, 0.99) / 1000 if reminded else float('nan'):.1f}, "
        f"last {max(reminded, default=0) / 1000:.1f}"
    )
    reset = rush.mail_times.get(made["reset_email"]) or []
    reset_s = (reset[0] - rush.reset_sent) if reset else None
    print(
        f"reset mail     : asked at T0+{rush.reset_sent - rush.t0:.1f} s with "
        f"{rush.queued_at_reset} analyses queued (202 in "
        f"{(rush.reset_answered - rush.reset_sent) * 1000:.0f} ms); "
        + (f"arrived {reset_s:.1f} s after the request" if reset_s is not None else "NOT arrived")
        + f"  (target ≤ 10 s: {'ok' if reset_s is not None and reset_s <= 10 else 'MISSED'})"
    )
    print(
        f"analyses       : {rush.analysed} done over the burst; {rush.heavy_left} "
        "tasks still on the heavy queue after it"
    )
    used = cpu.used()
    groups = [
        *sorted(k for k in used if k.startswith("daphne")),
        *sorted(k for k in used if k.startswith("worker")),
        f"postgres ({DB_NAME})",
        "postgres (shared)",
        "redis (the stack's)",
    ]
    acks = max(1, stats.acks)
    print(f"\nCPU over the burst ({cpu.elapsed:.1f} s)   CPU s   % of a core   ms per ack")
    for name in groups:
        s = used.get(name, 0.0)
        print(f"  {name:<32}{s:7.2f}{100 * s / cpu.elapsed:10.0f} %{s * 1000 / acks:12.2f}")
    served = sum(used.get(g, 0.0) for g in groups)
    busy, total = cpu.machine
    cores = os.cpu_count() or 1
    whole = cores * busy / total * cpu.elapsed if total else 0.0
    totals = [
        ("the service, all of it", served),
        ("this client (the players)", cpu.client),
        ("anything else on the machine", max(0.0, whole - served - cpu.client)),
    ]
    for name, s in totals:
        print(f"  {name:<32}{s:7.2f}{100 * s / cpu.elapsed:10.0f} %{s * 1000 / acks:12.2f}")
    print(
        f"  machine: {100 * busy / max(total, 1e-9):.0f} % of its {cores} CPUs busy; "
        f"load average before the run {load:.2f}"
    )
    problems = []
    if failed:
        first = next((p.failed for p in failed if p.failed), "no snapshot")
        problems.append(f"{len(failed)} of {args.players} players got no board (first: {first})")
    if not stats.acks:
        problems.append("no action was acknowledged")
    missing = len(made["reminded"]) - len(reminded)
    if missing:
        problems.append(f"{missing} reminder mails did not arrive within {MAIL_WAIT_S:g} s")
    if reset_s is None:
        problems.append(f"the reset mail did not arrive within {MAIL_WAIT_S:g} s")
    return problems


# --- the run ----------------------------------------------------------------------------------


def _terminated(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", type=int, default=200, help="players at midnight (200)")
    parser.add_argument("--actions", type=int, default=10, help="actions each (10)")
    parser.add_argument("--rate", type=float, default=1.0, help="actions/s a player (1)")
    parser.add_argument(
        "--analyses", type=int, default=1000, help="yesterday's games to analyse (1000)"
    )
    parser.add_argument("--reminders", type=int, default=100, help="mail reminders due (100)")
    parser.add_argument("--yesterday", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tag", default="", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.yesterday:  # the set-up step, in the stack's environment
        print(json.dumps(yesterday(analyses=args.analyses, reminders=args.reminders, tag=args.tag)))
        return 0
    if not 1 <= args.players <= 1000:
        parser.error("--players must be 1 to 1000")
    if not 1 <= args.actions <= 200 or not 0 < args.rate <= 10:
        parser.error("--actions must be 1 to 200, --rate above 0 and at most 10")
    if not 4 <= args.analyses <= 10000 or not 0 <= args.reminders <= 1000:
        parser.error("--analyses must be 4 to 10000, --reminders 0 to 1000")
    signal.signal(signal.SIGTERM, _terminated)
    from tests.support.smtp import smtp_listening

    tag = str(int(time.time()) % 100000)
    load = os.getloadavg()[0]  # the machine is shared: said beside the figures
    with smtp_listening() as (mailbox, port):
        arrivals = Arrivals(mailbox)
        stack = Stack(
            database=DB_NAME, daphnes=2, beat=False, extra={**ENV, "EMAIL_PORT": str(port)}
        )
        try:
            stack.start()
            made, rush = asyncio.run(midnight(stack, args, arrivals, tag))
            problems = report(args, made, rush, stack, load)
        finally:
            stack.close()
            arrivals.close()
    for problem in problems:
        print(f"FAILED: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except KeyboardInterrupt:
        sys.exit("stopped by Ctrl-C")
