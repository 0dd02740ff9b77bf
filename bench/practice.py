"""What the practice pool costs (a benchmark, not a test; issue 24).

    python bench/practice.py                    # 20 proven deals per variant, 20 inline searches
    python bench/practice.py --proven 50 --inline 40 --variants SH1-C1,EH1-N

For each variant it proves random numbered deals as the pool job does
(``games.practice``: ``games.dailies.prove`` with the variant's node budget,
the engine judging each line) until ``--proven`` are proven, and prints the
share proven, the time per candidate (median, p90, worst) and per proven deal,
and from that the time to fill a pool of ``POOL_SIZE``. Then ``--inline``
times the search a New deal request makes on a pool not yet filled (at most
``INLINE_SECONDS``): how often it proves a deal in time, and how long it takes.

Last, for each Seahaven variant, ``--dead-ends`` games led into a dead end
(a proven deal, a few moves of its winning line, then seeded random moves that
change something) and the last-winnable search the dead-end notice asks for
(``games.selectors``: a binary search of the undo window within
``LAST_WINNABLE_SECONDS``): its time, probes, and whether it was settled.
Nothing is stored: no database is used.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
os.environ.setdefault("DEBUG", "1")

import django

django.setup()

from bench.measure import machine, percentile  # noqa: E402
from games import practice, selectors  # noqa: E402
from games.dailies import prove  # noqa: E402
from games.engine import ALL_VARIANTS, VARIANTS, new_game, solve  # noqa: E402
from games.engine.solver import Outcome  # noqa: E402


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proven", type=int, default=20, help="proven deals to find per variant")
    parser.add_argument("--inline", type=int, default=20, help="inline searches per variant")
    parser.add_argument("--dead-ends", type=int, default=20, help="lost games per Seahaven variant")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS))
    args = parser.parse_args()
    print(f"Practice pool benchmark; machine: {machine()}")
    print(
        f"  pool {practice.POOL_SIZE} a variant, a fill task {practice.FILL_SECONDS:.0f} s,"
        f" inline search {practice.INLINE_SECONDS} s below {practice.INLINE_BELOW} deals"
    )
    print(
        f"{'variant':<8} {'tried':>6} {'proven':>7} {'lost':>5} {'unknown':>7} {'share':>6}"
        f" {'t median':>9} {'t p90':>9} {'t max':>9} {'per proven':>10} {'pool fill':>10}"
        f" {'inline ok':>9} {'inline med':>10}"
    )
    for variant in args.variants.split(","):
        nodes = VARIANTS[variant][1].effort.nodes
        codes = practice._random_codes(variant, set())
        times: list[float] = []
        outcomes: list[Outcome] = []
        while outcomes.count(Outcome.SOLVED) < args.proven:
            started = time.perf_counter()
            outcome, _ = prove(next(codes), nodes=nodes)
            times.append(time.perf_counter() - started)
            outcomes.append(outcome)
        per_proven = sum(times) / args.proven
        inline_ok, inline_times = 0, []
        for _ in range(args.inline):
            started = time.perf_counter()
            deadline = started + practice.INLINE_SECONDS
            while (left := deadline - time.perf_counter()) > 0:
                _, line = prove(next(codes), nodes=nodes, seconds=left)
                if line is not None:
                    inline_ok += 1
                    break
            inline_times.append(time.perf_counter() - started)
        solved = outcomes.count(Outcome.SOLVED)
        print(
            f"{variant:<8} {len(outcomes):>6} {solved:>7} {outcomes.count(Outcome.UNWINNABLE):>5}"
            f" {outcomes.count(Outcome.UNKNOWN):>7} {solved / len(outcomes):>6.0%}"
            f" {fmt(statistics.median(times)):>9} {fmt(percentile(times, 0.9)):>9}"
            f" {fmt(max(times)):>9} {fmt(per_proven):>10}"
            f" {fmt(per_proven * practice.POOL_SIZE):>10}"
            f" {inline_ok:>4}/{args.inline:<4} {fmt(statistics.median(inline_times)):>10}"
        )

    print(f"\nLast winnable (at most {selectors.LAST_WINNABLE_SECONDS} s a search)")
    print(
        f"{'variant':<8} {'games':>5} {'reach med':>9} {'undos med':>9} {'settled':>7}"
        f" {'none':>4} {'probes med':>10} {'t median':>9} {'t p90':>9} {'t max':>9}"
    )
    for variant in args.variants.split(","):
        if not variant.startswith("SH1"):
            continue
        rng = random.Random(1)
        codes = practice._random_codes(variant, set())
        rows = []
        while len(rows) < args.dead_ends:
            game = new_game(next(codes))
            line = solve(game, nodes=VARIANTS[variant][1].effort.nodes).line
            if not line:
                continue
            for action in line[: rng.randrange(len(line) // 2)]:
                game.apply(action)
            while not game.is_dead_end() and len(game.history) < 100:
                moves = [m for m in game.legal_moves if game.changes_something(m)]
                game.apply(rng.choice(moves))
            if not game.is_dead_end():
                continue
            started = time.perf_counter()
            undos, settled, probes = selectors._search_last_winnable(game)
            rows.append((len(game.history), undos, settled, probes, time.perf_counter() - started))
        times = [r[4] for r in rows]
        found = [r[1] for r in rows if r[1] is not None]
        print(
            f"{variant:<8} {len(rows):>5} {statistics.median(r[0] for r in rows):>9.0f}"
            f" {statistics.median(found) if found else '-':>9}"
            f" {sum(r[2] for r in rows):>7} {len(rows) - len(found):>4}"
            f" {statistics.median(r[3] for r in rows):>10.0f} {fmt(statistics.median(times)):>9}"
            f" {fmt(percentile(times, 0.9)):>9} {fmt(max(times)):>9}"
        )


if __name__ == "__main__":
    main()
