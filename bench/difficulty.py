"""Calibrate the predicted difficulty's levels (a benchmark, not a test).

    python bench/difficulty.py                  # 40 days per variant
    python bench/difficulty.py --days 100 --variants SH1-C4,EH1-N

For each variant it picks, for ``--days`` dates from ``--start``, the day's deal
as the daily-deal job does (``games/dailies.py``: the first candidate the
solver proves within the variant's node budget; the candidates come from
``games/daily_keys.py`` with a bench key instead of the server's secret), runs
:func:`games.engine.difficulty.predict` on it and prints, per variant, the
spread of each statistic, the time a prediction takes (median, worst: the
seconds it adds to the preparation task), and the 20th, 40th, 60th and 80th
percentiles of the scores. Those four are the variant's ``levels`` in its
game's declaration (``VariantSpec.levels``, e.g. ``games/engine/seahaven.py``):
each level is then about a fifth of a variant's days. It ends with the line to
paste into each variant's declaration.
"""

from __future__ import annotations

import argparse
import datetime as dt
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import machine, percentile
from games.daily_keys import candidate_codes
from games.engine import ALL_VARIANTS, VARIANTS, GameCode, new_game, solve
from games.engine.difficulty import Prediction, predict
from games.engine.solver import Outcome

KEY = b"bench-difficulty"


def day_deal(day: dt.date, variant: str, nodes: int, limit: int) -> GameCode | None:
    """The first candidate of ``day`` proven winnable within ``nodes``, as the job picks."""
    for tried, code in enumerate(candidate_codes(secret=KEY, date=day, variant=variant), 1):
        if tried > limit:
            return None
        if solve(new_game(code), nodes=nodes).outcome is Outcome.SOLVED:
            return code
    return None


def calibrate(variant: str, start: dt.date, days: int) -> list[float]:
    effort = VARIANTS[variant][1].effort
    found: list[Prediction] = []
    seconds: list[float] = []
    for offset in range(days):
        code = day_deal(start + dt.timedelta(days=offset), variant, effort.nodes, effort.candidates)
        if code is None:
            continue
        began = time.perf_counter()
        found.append(predict(code, nodes=effort.nodes))
        seconds.append(time.perf_counter() - began)
    scores = [p.score for p in found]
    print(f"\n{variant}: {len(found)} days")
    for name in ("nodes", "line", "first_moves", "winning_first", "playout_wins"):
        values = [getattr(p, name) for p in found]
        print(
            f"  {name:14} median {statistics.median(values):>8}  "
            f"min {min(values):>7}  max {max(values):>7}"
        )
    print(f"  seconds        median {statistics.median(seconds):.2f}  worst {max(seconds):.2f}")
    cuts = [round(percentile(scores, q), 3) for q in (0.2, 0.4, 0.6, 0.8)]
    print(f"  score          min {min(scores):.3f}  max {max(scores):.3f}  cuts {cuts}")
    return cuts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--days", type=int, default=40)
    parser.add_argument("--start", default="2026-01-01")
    parser.add_argument("--variants", default=",".join(ALL_VARIANTS))
    args = parser.parse_args()
    print(machine())
    start = dt.date.fromisoformat(args.start)
    thresholds = {v: calibrate(v, start, args.days) for v in args.variants.split(",")}
    print("\nEach variant's declaration (VariantSpec):")
    for variant, cuts in thresholds.items():
        print(f"    {variant}: levels=({', '.join(map(str, cuts))}),")


if __name__ == "__main__":
    main()
