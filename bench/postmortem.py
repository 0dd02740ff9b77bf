"""What "where it went wrong" costs (issue 27, deliverable 1): a benchmark, not a test.

    python bench/postmortem.py [--days 7] [--games 2] [--seed N]
    python bench/postmortem.py --variants EH1-N --seconds 30 --nodes 15000   # to compare

A week of real daily deals — ``--days`` dates from 2026-12-01, each variant,
chosen and proven as the daily-deal job does (``games.dailies.daily_deal_choose``,
keyed with a fixed bench secret instead of the server's) — and on each
``--games`` lost lines made by simple play: a greedy player that plays a
foundation move when it has one (seven times in ten), else a random legal
move that changes something, undoes one now and then (5 %), and stops at a
dead end or after ``MAX_ACTIONS`` actions (then resigns). A line that happens
to win is played again with another seed.

Each line is analysed by the very call the job makes
(``games.analysis.line_post_mortem``: the production limits, ``probe_nodes``
per probe — the variant's daily effort — and ``ANALYSIS_SECONDS`` in all),
and the figures
printed per variant and overall: the median and 95th percentile of its seconds
and probes, how many were settled, and where the last winnable position lay.
No database is used (the search needs none).
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import random
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # run as a script

from deploy.processes import server_env

FIRST_DAY = dt.date(2026, 12, 1)
MAX_ACTIONS = 200
FOUNDATION_CHANCE = 0.7
UNDO_CHANCE = 0.05


def setup_django() -> None:
    """The production settings, with a bench key for the daily deals (no database is opened)."""
    env = server_env(
        "postgres://postgres@127.0.0.1:5432/patience_bench_postmortem",
        None,
        # A bench key, fixed: the same week each run.
        DAILY_DEAL_SECRET="Bq3xR7kLm2Zp9Vt4Nw8Hc6Yd1Fg5Js0Ue",
    )
    os.environ.update(env)
    import django

    django.setup()


def lost_line(code: str, rng: random.Random) -> tuple[list[dict[str, Any]], bool] | None:
    """Greedy play from the deal to a dead end or ``MAX_ACTIONS`` actions: the
    logged actions (resolved, as the service logs them) and whether its end is a
    dead end; None when it won."""
    from games.engine import new_game

    game = new_game(code)
    log: list[dict[str, Any]] = []
    while len(log) < MAX_ACTIONS and not game.won and not game.is_dead_end():
        if game.history and rng.random() < UNDO_CHANCE:
            log.append(game.apply(game.parse_action({"type": "undo"})).to_json())
            continue
        moves = list(game.legal_moves)
        useful = getattr(game, "changes_something", None)  # Seahaven: no shuffling back and forth
        moves = [m for m in moves if useful(m)] or moves if useful else moves
        if not moves:
            break
        home = [m for m in moves if m.to_json().get("to", "")[:1] == "f"]
        pick = rng.choice(home if home and rng.random() < FOUNDATION_CHANCE else moves)
        log.append(game.apply(pick).to_json())
    if game.won:
        return None
    return log, game.is_dead_end()


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


def report(name: str, rows: list[dict[str, Any]]) -> None:
    seconds = [r["seconds"] for r in rows]
    probes = [float(r["probes"]) for r in rows]
    settled = sum(r["settled"] for r in rows)
    from_start = sum(r["index"] is None and r["settled"] for r in rows)
    named = sum(r["seq"] is not None for r in rows)
    print(
        f"{name:<8} {len(rows):>5} games  seconds median {statistics.median(seconds):6.2f}"
        f" p95 {pct(seconds, 0.95):6.2f} max {max(seconds):6.2f}"
        f"  probes median {statistics.median(probes):4.1f} p95 {pct(probes, 0.95):4.1f}"
        f"  settled {settled}/{len(rows)}  losing move named {named}"
        f"  lost from the start {from_start}"
        f"  line {statistics.median(r['length'] for r in rows):.0f} actions (median)"
    )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--games", type=int, default=2, help="lost lines per deal")
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--variants", help="comma-separated (default: every variant)")
    parser.add_argument(
        "--seconds", type=float, help="a game's time instead of ANALYSIS_SECONDS (to compare)"
    )
    parser.add_argument("--nodes", type=int, help="a probe's nodes instead of the variant's effort")
    args = parser.parse_args()
    setup_django()
    from games import analysis
    from games.analysis import line_post_mortem
    from games.dailies import daily_deal_choose
    from games.engine import ALL_VARIANTS

    if args.seconds is not None:
        analysis.ANALYSIS_SECONDS = args.seconds
    if args.nodes is not None:
        analysis.probe_nodes = lambda code: args.nodes
    variants = args.variants.split(",") if args.variants else list(ALL_VARIANTS)

    rng = random.Random(args.seed)
    print(
        f"post-mortem of {args.games} lost lines a deal, {args.days} days × {len(variants)}"
        f" variants; limits {analysis.ANALYSIS_SECONDS:.0f} s a game, nodes a probe: "
        + ", ".join(f"{v} {analysis.probe_nodes(v + '-AAAAAAB'):,}" for v in variants)
    )
    rows: dict[str, list[dict[str, Any]]] = {v: [] for v in variants}
    started = time.perf_counter()
    for offset in range(args.days):
        date = FIRST_DAY + dt.timedelta(days=offset)
        for variant in variants:
            choice = daily_deal_choose(date=date, variant=variant)
            code = str(choice.code)
            made = 0
            while made < args.games:
                line = lost_line(code, rng)
                if line is None:
                    continue
                log, dead = line
                tick = time.perf_counter()
                found = line_post_mortem(code, log, end_lost=dead)
                found["seconds"] = time.perf_counter() - tick
                rows[variant].append(found)
                made += 1
            print(f"  {date} {variant:<7} proven {choice.proof is not None}", flush=True)
    print()
    for variant, found in rows.items():
        report(variant, found)
    report("all", [r for found in rows.values() for r in found])
    print(f"\nrun time {time.perf_counter() - started:.0f} s (deals chosen and lines played too)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
