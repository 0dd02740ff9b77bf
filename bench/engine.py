"""Speed figures for the rules engine (a benchmark, not a test).

    python bench/engine.py        # or: make bench

For Easy Harp and Seahaven Towers (4 cells) it reaches a realistic mid-game
position — about 50 legal actions of seeded random play from a fixed deal,
preferring moves to stock taps — and times, with ``time.perf_counter_ns`` over
many repetitions: applying one legal action (validation included) on fresh
copies, apply followed by undo, listing every legal move, the player's view,
``targets_json``, ``to_json`` and ``load_game``; then replaying a 500-action
log (random legal play with undos) from the deal. Each row shows the median and
the 99th percentile; the garbage collector stays on, as in the server.

Last, dealing: ``new_game(code text)`` for numbered deals (C2) and long codes
(26-character keys, C2b) side by side, samples interleaved so both see the
same machine, and the difference against its target (a long code may cost at
most 50 µs more than a numbered deal).
"""

from __future__ import annotations

import gc
import platform
import random
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import machine, percentile
from games.engine import (
    MAX_DEAL,
    MAX_KEY,
    Game,
    Move,
    Stock,
    Undo,
    encode_deal,
    encode_key,
    load_game,
    new_game,
    replay,
)

GAMES = {"Easy Harp": "EH1-N-AAAAAAF", "Seahaven C4": "SH1-C4-AAAAAJ2"}
DEAD_END = "SH1-C2-AAAAAAB"
"""A Seahaven deal with no legal move at all from the start."""
SEED = 20240601
MID_GAME_ACTIONS = 50
REPLAY_ACTIONS = 500

TARGETS_NS = {"apply": 20_000, "view": 100_000, "replay 500": 10_000_000, "long deal": 50_000}
"""Median targets: apply ≤ 20 µs, view ≤ 100 µs, replay of 500 actions ≤ 10 ms,
and a long code's deal ≤ 50 µs more than a numbered one's."""
DEAL_VARIANTS = {"Easy Harp": "EH1-N", "Seahaven C4": "SH1-C4"}
DEALS_PER_KIND = 64
DEAL_ROUNDS = 60

Row = tuple[str, str, list[int], int | None]


def fmt(ns: float) -> str:
    if ns < 1_000_000:
        return f"{ns / 1000:.1f} µs"
    return f"{ns / 1_000_000:.2f} ms"


def fmt_signed(ns: float) -> str:
    return ("+" if ns >= 0 else "-") + fmt(abs(ns))


def sample(function: Callable[[], object], repeat: int) -> list[int]:
    """``repeat`` timings of ``function()``, in nanoseconds each."""
    clock = time.perf_counter_ns
    gc.collect()
    out = []
    for _ in range(repeat):
        start = clock()
        function()
        out.append(clock() - start)
    return out


def timer_overhead() -> int:
    clock = time.perf_counter_ns
    return int(statistics.median(-clock() + clock() for _ in range(10_000)))


def is_realistic(move: Move | Stock) -> bool:
    """Moves a player makes in passing (take-backs from a foundation left out)."""
    return not (isinstance(move, Move) and move.source.startswith("f"))


def lives_on(game: Game, move: Move | Stock) -> bool:
    """Does ``move`` leave a position with some move still to make?"""
    after = game.copy()
    after.apply(move)
    return after.won or any(is_realistic(m) for m in after.legal_moves)


def mid_game(code: str, seed: int) -> Game:
    """About 50 actions of random play, moves preferred, a stock tap now and then.

    Random play finds Seahaven dead ends fast, so the moves that lead into one
    are avoided, and a game that still runs out of moves is played again with
    the next seed.
    """
    for attempt in range(100):
        rng = random.Random(seed + attempt)
        game = new_game(code)
        while game.moves < MID_GAME_ACTIONS:
            legal = [m for m in game.legal_moves if is_realistic(m)]
            moves = [m for m in legal if isinstance(m, Move) and lives_on(game, m)]
            stock = [m for m in legal if isinstance(m, Stock)]
            if stock and (not moves or rng.random() < 0.3):
                game.apply(stock[0])
            elif moves:
                # Columns and foundations before cells, most of the time.
                useful = [m for m in moves if not m.target.startswith("c")] or moves
                game.apply(rng.choice(useful if rng.random() < 0.8 else moves))
            else:
                break
        if game.moves == MID_GAME_ACTIONS and len(list(game.legal_moves)) >= 3:
            return game
    raise RuntimeError(f"no mid-game position found for {code}")


def random_log(code: str, rng: random.Random, length: int) -> list[dict[str, object]]:
    """A ``length``-action log of random legal play, with undos, as stored JSON."""
    game = new_game(code)
    log: list[dict[str, object]] = []
    while len(log) < length:
        legal = list(game.legal_moves)
        if game.history and (not legal or rng.random() < 0.1):
            action: Move | Stock | Undo = Undo()
        elif legal:
            action = rng.choice(legal)
        else:
            break
        log.append(game.apply(action).to_json())
    return log


def bench_game(name: str, code: str, seed: int) -> list[Row]:
    game = mid_game(code, seed)
    rng = random.Random(seed)
    legal = list(game.legal_moves)
    rows: list[Row] = []
    position = f"{name} after {game.moves} actions ({len(legal)} legal moves)"
    print(f"  {position}")

    # apply alone: each sample on its own fresh copy (copies made outside the clock).
    clock = time.perf_counter_ns
    apply_ns: list[int] = []
    batch = 500
    for round_ in range(8):
        copies = [game.copy() for _ in range(batch)]
        gc.collect()
        for i, other in enumerate(copies):
            move = legal[(round_ * batch + i) % len(legal)]
            start = clock()
            other.apply(move)
            apply_ns.append(clock() - start)
    rows.append((name, "apply (validate + play one legal action)", apply_ns, TARGETS_NS["apply"]))

    json_moves = [m.to_json() for m in legal]
    json_ns: list[int] = []
    for round_ in range(4):
        copies = [game.copy() for _ in range(batch)]
        gc.collect()
        for i, other in enumerate(copies):
            data = json_moves[(round_ * batch + i) % len(legal)]
            start = clock()
            other.apply_json(data)
            json_ns.append(clock() - start)
    rows.append((name, "apply_json (parse + validate + play)", json_ns, None))

    work = game.copy()
    cycle = iter(range(10**9))

    def apply_undo() -> None:
        work.apply(legal[next(cycle) % len(legal)])
        work.apply(Undo())

    rows.append((name, "apply + undo", sample(apply_undo, 4000), None))
    rows.append((name, "list(legal_moves)", sample(lambda: list(game.legal_moves), 2000), None))
    # list() asks len() first, and LegalMoves.__len__ generates every move: one pass alone.
    one_pass = sample(lambda: list(iter(game.legal_moves)), 2000)
    rows.append((name, "list(iter(legal_moves)) (one pass)", one_pass, None))
    rows.append((name, "view() (player's view)", sample(game.view, 4000), TARGETS_NS["view"]))
    if code.startswith("SH1"):
        # dead_end (C10) looks through every legal move when none changes anything.
        stuck = new_game(DEAD_END)
        assert stuck.view()["dead_end"]
        label = f"view() at a dead end ({DEAD_END})"
        rows.append((name, label, sample(stuck.view, 4000), TARGETS_NS["view"]))
    rows.append((name, "targets_json()", sample(game.targets_json, 2000), None))
    rows.append((name, "to_json()", sample(game.to_json, 2000), None))
    saved = game.to_json()
    assert load_game(saved) == game
    rows.append((name, "load_game(to_json())", sample(lambda: load_game(saved), 2000), None))

    log = random_log(code, rng, REPLAY_ACTIONS)
    undos = sum(1 for a in log if a["type"] == "undo")
    objects = [work.parse_action(a) for a in log]
    assert replay(code, log) == replay(code, objects)
    label = f"replay {len(log)} actions (JSON, {undos} undos)"
    rows.append((name, label, sample(lambda: replay(code, log), 60), TARGETS_NS["replay 500"]))
    by_objects = sample(lambda: replay(code, objects), 60)
    rows.append((name, f"replay {len(log)} actions (objects)", by_objects, None))
    return rows


def bench_deals(seed: int) -> list[tuple[str, list[int], list[int]]]:
    """``new_game(text)`` timings per game: numbered deals, then long codes.

    Each round deals every code of both kinds once, alternating numbered and
    long, so a busy moment of the machine weighs on both alike.
    """
    rng = random.Random(seed)
    clock = time.perf_counter_ns
    out = []
    for name, variant in DEAL_VARIANTS.items():
        numbered = [
            f"{variant}-{encode_deal(rng.randint(1, MAX_DEAL))}" for _ in range(DEALS_PER_KIND)
        ]
        long = [f"{variant}-{encode_key(rng.randint(1, MAX_KEY))}" for _ in range(DEALS_PER_KIND)]
        numbered_ns: list[int] = []
        long_ns: list[int] = []
        gc.collect()
        for _ in range(DEAL_ROUNDS):
            for a, b in zip(numbered, long, strict=True):
                start = clock()
                new_game(a)
                numbered_ns.append(clock() - start)
                start = clock()
                new_game(b)
                long_ns.append(clock() - start)
        out.append((name, numbered_ns, long_ns))
    return out


def main() -> None:
    started = time.perf_counter()
    print("Engine benchmark")
    python = f"{platform.python_version()} ({platform.python_implementation()})"
    print(f"  Python {python}, {sys.executable}")
    print(f"  Machine: {machine()}")
    print(f"  Timer: time.perf_counter_ns, overhead ≈ {timer_overhead()} ns per sample (included)")
    print(f"  Seed {SEED}; garbage collector on")
    rows: list[Row] = []
    for name, code in GAMES.items():
        rows += bench_game(name, code, SEED)

    width = max(len(r[1]) for r in rows)
    header = f"{'game':<12} {'operation':<{width}} {'n':>5} {'median':>10} {'p99':>10}  target"
    print()
    print(header)
    print("-" * len(header))
    for name, label, samples, target in rows:
        median = statistics.median(samples)
        verdict = ""
        if target is not None:
            verdict = f"≤ {fmt(target)} median: {'ok' if median <= target else 'MISSED'}"
        print(
            f"{name:<12} {label:<{width}} {len(samples):>5} {fmt(median):>10} "
            f"{fmt(percentile(samples, 0.99)):>10}  {verdict}"
        )

    deals = bench_deals(SEED)
    target = TARGETS_NS["long deal"]
    print()
    header = (
        f"{'game':<12} {'deal: new_game(code)':<22} {'n':>5} {'numbered':>10} {'long':>10} "
        f"{'long - num':>11}  target"
    )
    print(header)
    print("-" * len(header))
    for name, numbered_ns, long_ns in deals:
        for label, pick in (("median", statistics.median), ("p99", None)):
            if pick is None:
                a, b = percentile(numbered_ns, 0.99), percentile(long_ns, 0.99)
            else:
                a, b = pick(numbered_ns), pick(long_ns)
            verdict = ""
            if pick is not None:
                ok = b - a <= target
                verdict = f"long ≤ numbered + {fmt(target)}: {'ok' if ok else 'MISSED'}"
            print(
                f"{name:<12} {label:<22} {len(long_ns):>5} {fmt(a):>10} {fmt(b):>10} "
                f"{fmt_signed(b - a):>11}  {verdict}"
            )
    print()
    print(f"Total run time {time.perf_counter() - started:.1f} s")


if __name__ == "__main__":
    main()
