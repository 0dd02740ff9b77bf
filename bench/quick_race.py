"""Quick race under load (issue 39, deliverable 4): a queue of 500 players
(``make bench-race``'s second part; ``bench/race.py --queue N``).

``--queue`` players sign up and get race ratings drawn from a normal law (mean
1500, sd 250; set in the database, as if each had raced five times). They tap
Quick race (Seahaven, 4 cells: one queue, the largest) at random moments over
``--arrive`` seconds, and each asks again every 1.5 s, as the lobby's window
does (``frontend/static/frontend/js/quickrace.js``), until an answer names its
race. Nobody then plays: the part measured is the queue.

It prints: players matched (of the queue) and how long each waited, from the
first tap to the answer naming the race (p50/p90/max); the races made, by size,
and the spread of ratings within each (max − min: p50/p90/max) and each
player's distance to their race's mean; the asks' answer times; the CPU of the
daphne, PostgreSQL and Redis per ask, beside the floor of one action measured
in the same run (``bench/race.py``'s first part). A player never matched after
``--patience`` s counts as such; the figures are the matched ones."""

from __future__ import annotations

import asyncio
import concurrent.futures
import random
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import psycopg

from bench.measure import percentile
from bench.ws_load import CpuMeter
from deploy.client import Client
from deploy.stack import Stack

ASK_S = 1.5
VARIANT = "SH1-C4"


@dataclass
class Queuer:
    index: int
    http: Client
    rating: float
    asks: list[float] = field(default_factory=list)  # each ask's answer time, ms
    tapped: float = 0.0
    matched: float = 0.0  # when the answer named the race (monotonic); 0: never
    race: str = ""
    failed: str = ""


def pg_url(url: str) -> str:
    return url.replace("postgres://", "postgresql://", 1)


async def _queue(player: Queuer, pool: Any, delay: float, patience: float) -> None:
    loop = asyncio.get_running_loop()
    await asyncio.sleep(delay)
    player.tapped = time.monotonic()
    body = {"variant": VARIANT}
    while time.monotonic() - player.tapped < patience:
        sent = time.monotonic()
        try:
            answer = await loop.run_in_executor(
                pool, player.http.expect, "POST", "/api/races/quick/", body
            )
        except Exception as exc:  # said once, not raised: the others queue on
            player.failed = f"{type(exc).__name__}: {exc}"
            return
        player.asks.append((time.monotonic() - sent) * 1000)
        if answer["race"]:
            player.matched, player.race = time.monotonic(), answer["race"]
            return
        await asyncio.sleep(max(0.0, ASK_S - (time.monotonic() - sent)))


async def run_queue(
    stack: Stack, *, players: int, arrive: float, patience: float, password: str
) -> dict[str, Any]:
    port = stack.ports[0]
    rng = random.Random(39)
    pool = concurrent.futures.ThreadPoolExecutor(64)
    loop = asyncio.get_running_loop()
    tag = str(int(time.time()) % 100000)
    queue = [Queuer(i, Client(port), rng.gauss(1500, 250)) for i in range(players)]
    signup = concurrent.futures.ThreadPoolExecutor(8)
    await asyncio.gather(
        *(
            loop.run_in_executor(signup, q.http.sign_up, f"qb{tag}x{q.index}", password)
            for q in queue
        )
    )
    with psycopg.connect(pg_url(stack.database_url)) as conn:  # ratings, as if raced
        conn.execute(
            "INSERT INTO leaderboard_racerating"
            " (player_id, rating, deviation, volatility, races, updated_at)"
            " SELECT id, r.rating, 80, 0.06, 5, now() FROM accounts_user u"
            " JOIN unnest(%s::text[], %s::float8[]) AS r(name, rating) ON u.username = r.name",
            ([q.http.username for q in queue], [q.rating for q in queue]),
        )
    pids = {"daphne 1": stack.daphnes[0].pid} if stack.daphnes[0] else {}
    cpu = CpuMeter(pids, stack.database)
    cpu.start()
    began = time.monotonic()
    await asyncio.gather(*(_queue(q, pool, rng.uniform(0, arrive), patience) for q in queue))
    cpu.finish()
    return {"queue": queue, "elapsed": time.monotonic() - began, "cpu": cpu}


def failures(result: dict[str, Any]) -> list[str]:
    queue = result["queue"]
    broken = [q for q in queue if q.failed]
    problems = []
    if broken:
        problems.append(
            f"quick race: {len(broken)} players' asks failed (first: {broken[0].failed})"
        )
    if not any(q.race for q in queue):
        problems.append("quick race: nobody was matched")
    return problems


def report(result: dict[str, Any], floor_ms: float | None) -> None:
    queue: list[Queuer] = result["queue"]
    matched = [q for q in queue if q.race]
    asks = [ms for q in queue for ms in q.asks]
    waits = [q.matched - q.tapped for q in matched]
    races: dict[str, list[Queuer]] = {}
    for q in matched:
        races.setdefault(q.race, []).append(q)
    sizes = Counter(len(r) for r in races.values())
    spreads = [max(q.rating for q in r) - min(q.rating for q in r) for r in races.values()]
    distance = [abs(q.rating - statistics.mean(p.rating for p in races[q.race])) for q in matched]
    print(f"\n## quick race: a queue of {len(queue)} (Seahaven, 4 cells; ratings 1500 ± 250)")
    print(
        f"matched: {len(matched)} of {len(queue)}, in {len(races)} races, "
        f"in {result['elapsed']:.1f} s"
    )
    if waits:
        print(
            "waited, tap to the answer naming the race: "
            f"p50 {percentile(waits, 0.5):.1f} s, p90 {percentile(waits, 0.9):.1f} s, "
            f"max {max(waits):.1f} s"
        )
    print("races by size: " + ", ".join(f"{n}: {sizes[n]}" for n in sorted(sizes, reverse=True)))
    if spreads:
        print(
            "rating spread in a race (max − min): "
            f"p50 {percentile(spreads, 0.5):.0f}, p90 {percentile(spreads, 0.9):.0f}, "
            f"max {max(spreads):.0f}; a racer from their race's mean: "
            f"p50 {percentile(distance, 0.5):.0f}, p90 {percentile(distance, 0.9):.0f}"
        )
    if asks:
        print(
            f"asks: {len(asks)}; answer p50 {percentile(asks, 0.5):.1f} ms, "
            f"p99 {percentile(asks, 0.99):.1f} ms, max {max(asks):.1f} ms"
        )
        used = result["cpu"].used()
        daphne = sum(v for k, v in used.items() if k.startswith("daphne"))
        postgres = sum(v for k, v in used.items() if k.startswith("postgres ("))
        redis_cpu = used.get("redis-server", 0.0)
        per_ask = daphne * 1000 / len(asks)
        line = (
            f"CPU per ask: daphne {per_ask:.2f} ms, PostgreSQL "
            f"{postgres * 1000 / len(asks):.2f} ms, Redis {redis_cpu * 1000 / len(asks):.2f} ms"
        )
        if floor_ms:
            line += f"; daphne per ask {per_ask / floor_ms:.1f}× the floor of one action"
        print(line)
