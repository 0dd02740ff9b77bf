"""Speed figures for the HTTP API (a benchmark, not a test).

    python bench/api.py [--actions N]        # or: make bench-api

It builds the production shape on this machine with nothing to set up: a fresh
PostgreSQL database of its own (``patience_bench_<pid>`` on
postgres@127.0.0.1:5432, whose cluster is started if it does not answer, as
``make stack`` does), a ``redis-server`` of its own on a free port (none, the
in-process cache, where Redis is not installed), ``manage.py migrate`` and a
real daphne on a free port — so two runs at once, or a run beside the tests,
share nothing. One client on one keep-alive connection (cookies and the
``X-CSRFToken`` header: ``deploy/client.py``) signs up, starts practice games
(``{"random": variant}`` over the four variants in turn) and applies N legal
actions chosen from the attempt's ``view.targets`` (plus ``stock`` in Easy Harp,
sometimes ``undo``), each with ``seq`` = the attempt's ``seq``; a game that is
won, stuck or long is replaced by a new one.

For each action it records the client's round trip and the server's own time
from the ``Server-Timing: app;dur=<ms>`` header, then prints p50/p90/p99/max of
both, actions per second and the targets (server time p50 ≤ 5 ms, p99 ≤ 20 ms).
Daphne and Redis are stopped and the database dropped at the end, even on error or
Ctrl-C.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import re
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from bench.measure import percentile
from deploy.client import Client
from deploy.processes import (
    ensure_postgres,
    free_port,
    one_daphne,
    postgres_version,
    server_env,
    start_redis,
    stop,
)
from games.engine import ALL_VARIANTS as VARIANTS  # the games' declarations

DB_NAME = f"patience_bench_{os.getpid()}"
TARGETS_MS = {"p50": 5.0, "p99": 20.0}
"""Server time per action: median ≤ 5 ms, 99th percentile ≤ 20 ms (PRODUCT.md)."""
DEADLINE_S = 240
"""The whole run stops after this long, whatever ``--actions`` says."""
MAX_GAME_ACTIONS = 200
"""Random play can wander for ever (Easy Harp's stock passes): resign and start anew."""
UNDO_CHANCE = 0.05
SEED = 20240601
TIMING = re.compile(r"app;dur=([0-9.]+)")


def choose_action(attempt: dict[str, Any], rng: random.Random) -> dict[str, Any] | None:
    """A legal action of the attempt's view, or ``None`` when stuck."""
    view = attempt["view"]
    moves = [
        {"type": "move", "from": t["from"], "to": to, "count": t["count"]}
        for t in view["targets"]
        for to in t["to"]
    ]
    # Taking cards back off a foundation is legal but rarely what a player does.
    forward = [m for m in moves if not m["from"].startswith("f")] or moves
    options: list[dict[str, Any]] = list(forward)
    if view["variant"].startswith("EH") and (view["piles"]["s"] or view["piles"]["w"]):
        options.append({"type": "stock"})
    if view.get("undo") and rng.random() < UNDO_CHANCE:
        return {"type": "undo"}
    if not options:
        return None
    return rng.choice(options)


# --- the run -----------------------------------------------------------------------


def play(port: int, actions: int, deadline: float) -> dict[str, Any]:
    rng = random.Random(SEED)
    client = Client(port)
    try:
        client.sign_up(f"bench{os.getpid()}", "bench horse battery staple")
        server: list[float] = []
        by_game: dict[str, list[float]] = {}
        round_trips: list[float] = []
        games = game_actions = 0
        attempt: dict[str, Any] | None = None
        outcomes = {"won": 0, "stuck": 0, "long": 0}
        started = time.perf_counter()
        while len(round_trips) < actions and time.perf_counter() < deadline:
            if attempt is None:
                variant = VARIANTS[games % len(VARIANTS)]
                attempt = client.expect(
                    "POST", "/api/games/", {"random": variant, "any": True}, status=201
                )
                games += 1
                game_actions = 0
            action = choose_action(attempt, rng)
            if action is None or game_actions >= MAX_GAME_ACTIONS:
                outcomes["stuck" if action is None else "long"] += 1
                client.expect("POST", f"/api/games/{attempt['id']}/resign/")
                attempt = None
                continue
            answer = client.request(
                "POST",
                f"/api/games/{attempt['id']}/actions/",
                {"seq": attempt["seq"], "action": action},
            )
            if answer.status != 200:
                raise RuntimeError(f"action {action} refused ({answer.status}): {answer.body}")
            found = TIMING.search(answer.headers.get("Server-Timing", ""))
            if found is None:
                raise RuntimeError("no Server-Timing header on the action's response")
            took = float(found.group(1))
            round_trips.append(answer.ms)
            server.append(took)
            by_game.setdefault(attempt["variant"][:2], []).append(took)
            game_actions += 1
            attempt = answer.body
            if attempt["status"] != "playing":
                outcomes["won"] += 1
                attempt = None
        elapsed = time.perf_counter() - started
        return {
            "server": server,
            "by_game": by_game,
            "round_trips": round_trips,
            "games": games,
            "outcomes": outcomes,
            "elapsed": elapsed,
        }
    finally:
        client.close()


def report(result: dict[str, Any], *, pg_version: str, redis: bool, requested: int) -> None:
    server, trips = result["server"], result["round_trips"]
    done = len(trips)
    print(f"machine : {platform.platform()}, {os.cpu_count()} CPUs, {platform.machine()}")
    print(f"python  : {platform.python_implementation()} {platform.python_version()}")
    print(f"postgres: {pg_version.split(',', maxsplit=1)[0]}")
    print(f"redis   : {'a redis-server of its own' if redis else 'none (in-process cache)'}")
    print("server  : daphne, 1 process; client: http.client, 1 keep-alive connection")
    outcomes = ", ".join(f"{k} {v}" for k, v in result["outcomes"].items())
    print(f"actions : {done} of {requested} in {result['games']} games ({outcomes})")
    if not done:
        print("no action timed")
        return
    print()
    print(f"{'ms':<14}{'p50':>8}{'p90':>8}{'p99':>8}{'max':>8}")
    names = {"EH": "  Easy Harp", "SH": "  Seahaven"}
    rows = [("server time", server)]
    rows += [(names.get(g, g), v) for g, v in sorted(result["by_game"].items())]
    rows.append(("round trip", trips))
    for name, samples in rows:
        cells = [percentile(samples, q) for q in (0.5, 0.9, 0.99)] + [max(samples)]
        print(f"{name:<14}" + "".join(f"{c:>8.2f}" for c in cells) + f"  n={len(samples)}")
    print()
    print(f"throughput: {done / result['elapsed']:.0f} actions/s (one client, sequential)")
    for name, q in (("p50", 0.5), ("p99", 0.99)):
        got, limit = percentile(server, q), TARGETS_MS[name]
        verdict = "ok" if got <= limit else "MISSED"
        print(f"target server {name} ≤ {limit:g} ms: {got:.2f} ms  {verdict}")
    if done < requested:
        print(f"stopped early: the {DEADLINE_S} s limit was reached")


def _terminated(signum: int, frame: object) -> None:
    raise SystemExit(f"stopped by signal {signum}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--actions", type=int, default=1000, help="actions to time (1000)")
    args = parser.parse_args()
    if args.actions < 1:
        parser.error("--actions must be at least 1")
    deadline = time.perf_counter() + DEADLINE_S
    # A plain SIGTERM would skip the clean-up below; make it an exception instead.
    signal.signal(signal.SIGTERM, _terminated)
    ensure_postgres()
    redis = shutil.which("redis-server") is not None
    redis_port = free_port()
    env = server_env(
        f"postgres://postgres@127.0.0.1:5432/{DB_NAME}",
        f"redis://127.0.0.1:{redis_port}/0" if redis else None,
        REGISTER_RATE="1000/hour",  # repeated runs must not hit the sign-up throttle
        # The bench times actions, not the throttles: it must never meet its own 429.
        ACTION_RATE="1000000/min",
        GAME_RATE="100000/min",
        LOG_LEVEL="WARNING",
    )
    with tempfile.TemporaryDirectory(prefix="bench-api-") as tmp:
        server = start_redis(redis_port, log=Path(tmp) / "redis.log") if redis else None
        try:
            with one_daphne(DB_NAME, env, Path(tmp) / "daphne.log") as port:
                result = play(port, args.actions, deadline)
                report(result, pg_version=postgres_version(), redis=redis, requested=args.actions)
        finally:
            if server is not None:
                stop([server])
    return 0


if __name__ == "__main__":
    sys.exit(main())
