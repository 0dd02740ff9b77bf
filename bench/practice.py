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
Nothing is stored: no database is used.
"""

from __future__ import annotations

import argparse
import os
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
from games import practice  # noqa: E402
from games.dailies import prove  # noqa: E402
from games.engine import ALL_VARIANTS, VARIANTS  # noqa: E402
from games.engine.solver import Outcome  # noqa: E402


def fmt(seconds: float) -> str:
    return f"{seconds * 1000:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--proven", type=int, default=20, help="proven deals to find per variant")
    parser.add_argument("--inline", type=int, default=20, help="inline searches per variant")
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


if __name__ == "__main__":
    main()
