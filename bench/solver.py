"""Speed and strength figures for the solvers (a benchmark, not a test).

    python bench/solver.py                      # 200 deals per Seahaven variant, 50 Easy Harp
    python bench/solver.py --deals 1000 --nodes 200000 --seconds 10 --fc-seconds 10

For each Seahaven variant (4, 2 and 1 cells) it solves the same random deal
numbers (picked by ``--seed``) with :func:`games.engine.solver.solve` under a
per-deal budget and prints how many were solved, proven unwinnable or left
unknown, with the median, 90th percentile and worst time per deal; every
solved line is replayed through the engine and must win. Then Easy Harp deals
the same way.

If ``fc-solve`` (Freecell Solver, Debian ``freecell-solver-bin``) is on the PATH,
it is run on the same Seahaven deals (``fc-solve -g seahaven --freecells-num N``,
with a time limit per deal) and both are printed side by side, with the list of
deals fc-solve solves that ours does not — which must be empty. (fc-solve's "I
could not solve this game" is not a proof: its default search is not complete.)

Last, "prepare a day": for a date-like seed, how long finding a proven-winnable
deal takes per variant when trying candidates in order, as the daily-deal job
does (``games/dailies.py``; the candidates come from the same function,
``games/daily_keys.py``, with a bench key instead of the server's secret).
"""

from __future__ import annotations

import argparse
import datetime as dt
import platform
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import machine, percentile
from games.daily_keys import candidate_codes
from games.engine import EngineError, Game, GameCode, new_game, solve
from games.engine.codes import MAX_DEAL
from games.engine.solver import Outcome, Solution

SEAHAVEN_VARIANTS = ("C4", "C2", "C1")
SOLVED, UNWINNABLE, UNKNOWN = Outcome.SOLVED, Outcome.UNWINNABLE, Outcome.UNKNOWN


@dataclass
class Result:
    number: int
    outcome: Outcome
    seconds: float
    nodes: int = 0
    line: int = 0
    bad: bool = False
    """A SOLVED line that the engine refused or that did not win (must never happen)."""


def fmt(seconds: float) -> str:
    if seconds < 1:
        return f"{seconds * 1000:.1f} ms"
    return f"{seconds:.2f} s"


def run_solver(code: GameCode, nodes: int, seconds: float | None) -> Result:
    game = new_game(code)
    started = time.perf_counter()
    solution = solve(game, nodes=nodes, seconds=seconds)
    elapsed = time.perf_counter() - started
    bad = solution.outcome is SOLVED and not wins(game, solution, code)
    return Result(code.number, solution.outcome, elapsed, solution.nodes, len(solution.line), bad)


def wins(game: Game, solution: Solution, code: GameCode) -> bool:
    """The engine is the judge: the line must replay to a win."""
    board = game.copy()
    try:
        for action in solution.line:
            board.apply(action)
    except EngineError as exc:
        print(f"  {code}: the engine refuses the solver's line: {exc}")
        return False
    if not board.won:
        print(f"  {code}: the solver's line does not win")
    return board.won


def summary(name: str, results: list[Result]) -> str:
    """One table row; fc-solve's rows have no node counts nor lines."""
    times = [r.seconds for r in results]
    counts = {o: sum(1 for r in results if r.outcome is o) for o in (SOLVED, UNWINNABLE, UNKNOWN)}
    lines = [r.line for r in results if r.outcome is SOLVED and r.line]
    nodes = [r.nodes for r in results]
    node_med = f"{statistics.median(nodes):.0f}" if any(nodes) else "-"
    node_max = f"{max(nodes)}" if any(nodes) else "-"
    line_med = f"{statistics.median(lines):.0f}" if lines else "-"
    bad = sum(r.bad for r in results)
    return (
        f"{name:<12} {len(results):>5} {counts[SOLVED]:>6} {counts[UNWINNABLE]:>6} "
        f"{counts[UNKNOWN]:>7} {fmt(statistics.median(times)):>9} "
        f"{fmt(percentile(times, 0.9)):>9} {fmt(max(times)):>9} "
        f"{node_med:>9} {node_max:>9} {line_med:>8} {bad:>4}"
    )


HEADER = (
    f"{'variant':<12} {'deals':>5} {'solved':>6} {'unwin':>6} {'unknown':>7} "
    f"{'t median':>9} {'t p90':>9} {'t max':>9} {'nodes med':>9} {'nodes max':>9} {'line med':>8} "
    f"{'bad':>4}"
)
"""``unwin``: proven unwinnable; ``line med``: median line length (the par) of the solved;
``bad``: solved lines the engine refused or that did not win (must be 0)."""


# --- fc-solve ----------------------------------------------------------------------


def fc_board(game: Game) -> str:
    """The position in fc-solve's board format: a cells line, then one line per column,
    bottom card first (README of freecell-solver, "FC:" and "Founds:" lines)."""
    cells = [game.piles[c][-1].text if game.piles[c] else "-" for c in game.cells]
    suits = "SHDC"
    founds = " ".join(f"{suits[i]}-{len(game.piles[f])}" for i, f in enumerate(game.foundations))
    rows = [f"Founds: {founds}", "FC: " + " ".join(cells)]
    rows += [" ".join(c.text for c in game.piles[t]) or ":" for t in game.columns]
    return "\n".join(rows) + "\n"


def run_fc_solve(code: GameCode, limit: float) -> Result:
    game = new_game(code)
    command = ["fc-solve", "-g", "seahaven", "--freecells-num", str(len(game.cells))]
    started = time.perf_counter()
    try:
        done = subprocess.run(
            command,
            input=fc_board(game),
            capture_output=True,
            text=True,
            timeout=limit,
            check=False,
        )
    except subprocess.TimeoutExpired:
        return Result(code.number, UNKNOWN, time.perf_counter() - started)
    elapsed = time.perf_counter() - started
    if "This game is solveable" in done.stdout:
        outcome = SOLVED
    elif "could not solve" in done.stdout:
        outcome = UNWINNABLE  # "gave up": fc-solve's default search is not complete
    else:
        raise SystemExit(f"fc-solve on {code}: unexpected output {done.stdout[-300:]!r}")
    return Result(code.number, outcome, elapsed)


# --- prepare a day -----------------------------------------------------------------


def day_candidates(day: str, variant: str, key: bytes) -> Iterable[GameCode]:
    """The candidate deals of ``day``, in the order the daily-deal job tries them."""
    return candidate_codes(secret=key, date=dt.date.fromisoformat(day), variant=variant)


@dataclass
class Day:
    code: GameCode | None
    """The first candidate proven winnable (None: none within the limit)."""
    tried: int
    unknown: int
    seconds: float
    par: int = 0


def prepare_day(day: str, variant: str, key: bytes, nodes: int, limit: int) -> Day:
    """Try the day's candidates in order until one is proven winnable."""
    started = time.perf_counter()
    unknown = 0
    for tried, code in enumerate(day_candidates(day, variant, key), start=1):
        if tried > limit:
            break
        result = run_solver(code, nodes, None)
        unknown += result.outcome is UNKNOWN
        if result.outcome is SOLVED and not result.bad:
            return Day(code, tried, unknown, time.perf_counter() - started, result.line)
    return Day(None, limit, unknown, time.perf_counter() - started)


# --- main --------------------------------------------------------------------------


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=200, help="Seahaven deals per variant")
    parser.add_argument("--eh-deals", type=int, default=50, help="Easy Harp deals")
    parser.add_argument("--seed", type=int, default=20240601, help="picks the deal numbers")
    parser.add_argument("--nodes", type=int, default=200_000, help="node budget per deal")
    parser.add_argument("--seconds", type=float, default=None, help="time budget per deal")
    parser.add_argument("--variants", default="C4,C2,C1,EH", help="which variants to run")
    parser.add_argument("--fc-seconds", type=float, default=10.0, help="fc-solve limit per deal")
    parser.add_argument("--no-fc", action="store_true", help="do not run fc-solve")
    parser.add_argument("--day", default="2024-06-01", help="the first day (a date)")
    parser.add_argument("--days", type=int, default=7, help="how many days to prepare")
    parser.add_argument("--day-candidates", type=int, default=1000, help="candidates at most")
    parser.add_argument("--no-day", action="store_true", help="skip 'prepare a day'")
    args = parser.parse_args()
    variants = args.variants.upper().split(",")

    begun = time.perf_counter()
    print("Solver benchmark")
    python = f"{platform.python_version()} ({platform.python_implementation()})"
    print(f"  Python {python}, {sys.executable}")
    print(f"  Machine: {machine()}")
    budget = f"{args.nodes:,} nodes" + (f" / {args.seconds} s" if args.seconds else "")
    print(f"  Seed {args.seed}; budget per deal {budget}")
    numbers = random.Random(args.seed).sample(range(1, MAX_DEAL + 1), args.deals)
    with_eh = "EH" in variants

    ours: dict[str, list[Result]] = {}
    for variant in SEAHAVEN_VARIANTS:
        if variant in variants:
            codes = [GameCode("SH1", variant, n) for n in numbers]
            ours[variant] = [run_solver(c, args.nodes, args.seconds) for c in codes]
    if with_eh:
        eh_numbers = random.Random(args.seed + 1).sample(range(1, MAX_DEAL + 1), args.eh_deals)
        codes = [GameCode("EH1", "N", n) for n in eh_numbers]
        ours["EH1-N"] = [run_solver(c, args.nodes, args.seconds) for c in codes]

    print()
    print(HEADER)
    print("-" * len(HEADER))
    for variant, results in ours.items():
        print(summary(variant if variant == "EH1-N" else f"SH1-{variant}", results))
    print("slowest:")
    for variant, results in ours.items():
        slow = sorted(results, key=lambda r: -r.seconds)[:3]
        game, letter = ("EH1", "N") if variant == "EH1-N" else ("SH1", variant)
        named = (f"{GameCode(game, letter, r.number)} {r.outcome} {fmt(r.seconds)}" for r in slow)
        print(f"  {', '.join(named)}")

    # More cells never hurt: a line winning with 2 cells wins with 4 (same shuffle, C1).
    if "C4" in ours and "C2" in ours:
        c4 = {r.number: r.outcome for r in ours["C4"]}
        odd = [r.number for r in ours["C2"] if r.outcome is SOLVED and c4[r.number] is UNWINNABLE]
        print(f"\n  C2 solved but C4 unwinnable (must be none): {odd or 'none'}")

    fc = shutil.which("fc-solve")
    if args.no_fc or not fc:
        print("\n  fc-solve " + ("not run (--no-fc)" if fc else "not found on PATH: skipped"))
    else:
        print(f"\nfc-solve ({fc}, -g seahaven, limit {args.fc_seconds} s per deal), same deals")
        print("(its 'unwin' is 'could not solve': a give-up, not a proof):")
        print(HEADER)
        print("-" * len(HEADER))
        for variant, results in ours.items():
            if variant == "EH1-N":
                continue
            theirs = [run_fc_solve(GameCode("SH1", variant, n), args.fc_seconds) for n in numbers]
            print(summary(f"fc SH1-{variant}", theirs))
            mine = {r.number: r.outcome is SOLVED for r in results}
            missed = [r.number for r in theirs if r.outcome is SOLVED and not mine[r.number]]
            extra = sum(1 for r in theirs if r.outcome is not SOLVED and mine[r.number])
            print(f"  solved by fc-solve, not by ours (must be none): {missed or 'none'}")
            print(f"  solved by ours, not by fc-solve: {extra}")

    if not args.no_day:
        key = b"bench"
        start = dt.date.fromisoformat(args.day)
        dates = [(start + dt.timedelta(days=i)).isoformat() for i in range(args.days)]
        print(f"\nPrepare a day: {args.days} day(s) from {args.day}, candidates in order")
        print(
            f"{'variant':<8} {'day':<10} {'deal':<33} {'tried':>5} {'unknown':>7} {'time':>9} par"
        )
        day_variants = [f"SH1-{v}" for v in SEAHAVEN_VARIANTS if v in variants]
        day_variants += ["EH1-N"] if with_eh else []
        for variant in day_variants:
            days = [prepare_day(d, variant, key, args.nodes, args.day_candidates) for d in dates]
            for date, done in zip(dates, days, strict=True):
                deal = str(done.code) if done.code else "none found"
                print(
                    f"{variant:<8} {date:<10} {deal:<33} {done.tried:>5} {done.unknown:>7} "
                    f"{fmt(done.seconds):>9} {done.par or '-'}"
                )
            seconds = [d.seconds for d in days]
            tried = [d.tried for d in days]
            print(
                f"{variant:<8} {'median':<10} {'':<33} {statistics.median(tried):>5.0f} "
                f"{'':>7} {fmt(statistics.median(seconds)):>9}  (max {fmt(max(seconds))}, "
                f"{max(tried)} tried)"
            )

    print(f"\nTotal run time {time.perf_counter() - begun:.1f} s")


if __name__ == "__main__":
    main()
