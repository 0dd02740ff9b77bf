"""What the player knew, measured (issue 36): detection and false positives of
``games.engine.knew`` on simulated Easy Harp wins (a benchmark, not a test).

    python bench/knew.py                         # 22 deals, 5 honest + 5 clairvoyant games each
    python bench/knew.py --deals 4 --games 2     # a quick look
    make bench-knew

The deals are real daily deals: the candidates of ``games/daily_keys.py`` (long
codes, as the daily job draws them, with a bench secret), the first one per day the
solver proves winnable. On each, simulated players play whole games through the
engine, and only their wins are judged:

**Honest** players see what the engine's player view shows, nothing else:

- *planner* (strong): draws a deal consistent with what it has seen, solves it, and
  plays that line until a card turns up that is not what it assumed, then plans again
  (determinization, the usual way to play a hidden-card game well); some look through
  the stock first, some explore with undo (uncover a card, look, take it back);
- *careless* (weak to middling): the planner with a short search, which now and then
  plays a random legal move instead;
- every kind slow or fast does not matter here: the test reads no time.

A planner stuck (no consistent deal it can win, or no progress) undoes a few moves and
tries again, as a person would; a game it cannot win within its effort is dropped.

**Clairvoyant** players know every card:

- *solver line*: the solver's line of the true deal (the day's proof), with undone
  detours (a move and its undo) sprinkled in — 0 to 40;
- *random line*: a winning line of the true deal played in pieces, each from a solver
  setting picked at random, with undone detours.

For each win it prints whether ``knew`` flagged it (the reason's kind) and its CPU
time, then the table: per kind, wins, flagged share, median and worst CPU seconds.
``--save FILE`` keeps every game (code, actions, verdict) as JSON lines to judge again
with other thresholds (``--load FILE``).
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import multiprocessing
import random
import statistics
import sys
import time
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.measure import machine, percentile
from games.daily_keys import candidate_codes
from games.engine import EngineError, Game, Move, Stock, Undo, new_game, solve
from games.engine import knew as K
from games.engine.solver import Budget, Outcome
from games.engine.solver.easy_harp import Params, probe_easy_harp

BENCH_SECRET = b"bench-knew"
MAX_ACTIONS = 3000
"""A simulated game longer than this is dropped (lost)."""


def daily_deals(n: int, first: dt.date) -> list[tuple[str, list[dict[str, Any]]]]:
    """``n`` days' Easy Harp dailies: (code, proof), the first candidate the solver wins."""
    out = []
    for day in range(n):
        date = first + dt.timedelta(days=day)
        for code in candidate_codes(secret=BENCH_SECRET, date=date, variant="EH1-N"):
            found = solve(new_game(str(code)), nodes=60_000)
            if found.outcome is Outcome.SOLVED:
                out.append((str(code), [a.to_json() for a in found.line]))
                break
    return out


# --- a simulated player's game --------------------------------------------------------------


class Table:
    """The game as a player plays it: the engine, the log, and what the player saw."""

    def __init__(self, code: str) -> None:
        self.game = new_game(code)
        self.log: list[dict[str, Any]] = []
        self.seen = frozenset(K._visible(self.game))

    def play(self, action: Move | Stock | Undo) -> Move | Stock | Undo:
        resolved = self.game.apply(action)
        self.log.append(resolved.to_json())
        self.seen = self.seen | K._visible(self.game)
        return resolved

    def detour(self, rng: random.Random) -> None:
        """A move played and undone at once (it looks, or it does not)."""
        moves = [m for m in self.game.legal_moves if isinstance(m, Move)]
        if moves:
            self.play(rng.choice(moves))
            if not self.game.won:
                self.play(Undo())

    @property
    def over(self) -> bool:
        return self.game.won or len(self.log) >= MAX_ACTIONS


def _surprise(table: Table, sample: Game) -> bool:
    """Has a card turned up that is not where ``sample`` put it?"""
    game = table.game
    for pid, pile in game.piles.items():
        for i in range(game.face_down(pid), len(pile)):
            other = sample.piles[pid]
            if i >= len(other) or other[i].id % 52 != pile[i].id % 52:
                return True
    return False


def _run_line(  # noqa: PLR0917
    table: Table,
    sample: Game,
    line: tuple[Move | Stock, ...],
    detours: float,
    rng: random.Random,
    stop_on_surprise: bool,
    noise: float = 0.0,
) -> None:
    """Play ``line`` (found on ``sample``) until it ends, a surprise, or a random move."""
    for action in line:
        if table.over:
            return
        if isinstance(action, Move) and rng.random() < noise:
            moves = [m for m in table.game.legal_moves if isinstance(m, Move)]
            if moves:
                table.play(rng.choice(moves))
                return
        if rng.random() < detours:
            table.detour(rng)
        try:
            table.play(action)
        except EngineError:
            return
        sample.apply(action)  # keeps the sample's position in step with the table's
        if stop_on_surprise and isinstance(action, Move) and _surprise(table, sample):
            return


def honest(
    code: str, rng: random.Random, *, nodes: int, noise: float, stock_first: bool, explore: float
) -> Table:
    """A player who plays from what it sees (see the module)."""
    table = Table(code)
    if stock_first:  # a look through the whole stock: free (A), and then it is known
        while table.game.piles["s"]:
            table.play(Stock())
        table.play(Stock())
    stuck = 0
    while not table.over and stuck < 60:
        if explore and rng.random() < explore:
            table.detour(rng)
        game = table.game
        line = None
        for _ in range(4):
            sample = K.consistent_deal(game, table.seen, rng)
            line = probe_easy_harp(sample, Budget(nodes=nodes))
            if line:
                break
        if not line:
            stuck += 1
            for _ in range(rng.randint(1, 6)):  # back out of a dead end, as a person would
                if table.game.history:
                    table.play(Undo())
            continue
        before = len(table.log)
        _run_line(table, sample, line, 0.0, rng, stop_on_surprise=True, noise=noise)
        stuck += len(table.log) == before
    return table


def clairvoyant(
    code: str, proof: list[dict[str, Any]], rng: random.Random, *, kind: str, detours: int
) -> Table:
    """A player who knows every card (see the module)."""
    table = Table(code)
    share = detours / 300
    if kind == "solver line":
        line = tuple(new_game(code).parse_action(a) for a in proof)
        _run_line(table, table.game.copy(), line, share, rng, stop_on_surprise=False)  # type: ignore[arg-type]
        return table
    while not table.over:
        params = Params(
            fd=rng.choice((8, 10, 15)),
            harm=rng.choice((2, 3, 4)),
            lam=rng.choice((0.1, 0.3, 0.5)),
            empty=rng.choice((2, 5)),
        )
        line = probe_easy_harp(table.game, Budget(nodes=20_000), (params,)) or probe_easy_harp(
            table.game, Budget(nodes=60_000)
        )
        if not line:
            break
        piece = rng.randint(8, 40)
        moves = 0
        cut = len(line)
        for i, a in enumerate(line):
            moves += isinstance(a, Move)
            if moves >= piece:
                cut = i + 1
                break
        _run_line(table, table.game.copy(), line[:cut], share, rng, stop_on_surprise=False)
    return table


# --- the corpus -----------------------------------------------------------------------------

HONEST = {
    "planner, looks at the stock": {
        "nodes": 3000,
        "noise": 0.0,
        "stock_first": True,
        "explore": 0.0,
    },
    "planner, explores with undo": {
        "nodes": 3000,
        "noise": 0.0,
        "stock_first": False,
        "explore": 0.3,
    },
    "planner": {"nodes": 3000, "noise": 0.0, "stock_first": False, "explore": 0.0},
    "careless": {"nodes": 800, "noise": 0.05, "stock_first": False, "explore": 0.1},
}
CLAIRVOYANT = ("solver line", "random line")


def jobs(
    deals: list[tuple[str, list[dict[str, Any]]]], games: int, done: set[tuple[str, int]]
) -> Iterator[tuple[Any, ...]]:
    """Every game to play: game ``g`` of every deal before game ``g + 1`` of any (a run
    cut short still spans every deal), leaving out those ``done`` (side, seed)."""
    for g in range(games):
        for d, (code, proof) in enumerate(deals):
            seed = d * 1000 + g
            if ("honest", seed) not in done:
                yield ("honest", list(HONEST)[g % len(HONEST)], code, proof, seed)
            if ("clairvoyant", seed) not in done:
                yield ("clairvoyant", CLAIRVOYANT[g % len(CLAIRVOYANT)], code, proof, seed)


def play_and_judge(job: tuple[Any, ...]) -> dict[str, Any]:
    try:
        return _play_and_judge(job)
    except Exception as exc:  # a worker's error must reach the report, not hang the pool
        raise RuntimeError(f"{job[:2]} on {job[2]} (seed {job[4]}): {exc!r}") from None


def _play_and_judge(job: tuple[Any, ...]) -> dict[str, Any]:
    side, kind, code, proof, seed = job
    rng = random.Random(seed)
    started = time.process_time()
    if side == "honest":
        table = honest(code, rng, **HONEST[kind])  # type: ignore[arg-type]
    else:
        table = clairvoyant(code, proof, rng, kind=kind, detours=rng.choice((0, 10, 20, 40)))
    played = time.process_time() - started
    out: dict[str, Any] = {
        "side": side,
        "kind": kind,
        "code": code,
        "seed": seed,
        "won": table.game.won,
        "actions": table.log,
        "proof": proof,
        "play_seconds": round(played, 2),
    }
    if table.game.won:
        out["verdict"] = K.knew(code, table.log, proof).to_json()
    return out


def judge_again(saved: dict[str, Any]) -> dict[str, Any]:
    """A saved game judged again (the thresholds or the test changed, not the play)."""
    if saved["won"]:
        saved["verdict"] = K.knew(saved["code"], saved["actions"], saved.get("proof")).to_json()
    return saved


def _share(wins: list[dict[str, Any]], side: str, kind: str | None, at: float) -> float:
    games = [r for r in wins if r["side"] == side and kind in (None, r["kind"])]
    return sum(r["verdict"]["evidence"] >= at for r in games) / len(games) if games else 0.0


def _held_out(wins: list[dict[str, Any]]) -> None:
    """The evidence threshold chosen on half the deals (the lowest of 0.5, 1, … 8 that
    flags at most 1 % of their honest wins), its rates measured on the other half:
    a threshold chosen and measured on the same games would flatter it."""
    codes = sorted({r["code"] for r in wins})
    for name, fit in (("even", set(codes[0::2])), ("odd", set(codes[1::2]))):
        chosen = [r for r in wins if r["code"] in fit]
        held = [r for r in wins if r["code"] not in fit]
        at = next(
            (t / 2 for t in range(1, 17) if _share(chosen, "honest", None, t / 2) <= 0.01), 8.0
        )

        def flagged(r: dict[str, Any], at: float = at) -> bool:
            v = r["verdict"]
            return v["evidence"] >= at or v["line_share"] >= K.LINE_SHARE

        rates = []
        for side, kind in [("honest", None)] + [("clairvoyant", k) for k in CLAIRVOYANT]:
            games = [r for r in held if r["side"] == side and kind in (None, r["kind"])]
            share = sum(map(flagged, games)) / len(games) if games else 0.0
            rates.append(f"{kind or side} {share:.1%} of {len(games)}")
        print(
            f"threshold {at:g} chosen on the {name} deals ({len(chosen)} wins); "
            f"on the others: " + ", ".join(rates)
        )


def report(results: list[dict[str, Any]], flag_at: float, line_share: float) -> None:
    wins = [r for r in results if r["won"]]
    print(
        f"\n{len(results)} games played, {len(wins)} won; flagged from evidence "
        f"{flag_at:g} or a solver line share {line_share:.0%}"
    )
    rows: dict[tuple[str, str], list[dict[str, Any]]] = defaultdict(list)
    for r in wins:
        rows[(r["side"], r["kind"])].append(r)
        rows[(r["side"], "all")].append(r)
    print(
        f"{'side':12} {'kind':30} {'wins':>5} {'flagged':>8} {'by line':>8} "
        f"{'by evidence':>11} {'cpu p50':>8} {'cpu max':>8}"
    )
    for (side, kind), rs in sorted(rows.items()):
        v = [r["verdict"] for r in rs]
        by_line = sum(x["line_share"] >= line_share for x in v)
        by_evidence = sum(x["evidence"] >= flag_at for x in v)
        flagged = sum(x["line_share"] >= line_share or x["evidence"] >= flag_at for x in v)
        cpu = [x["seconds"] for x in v]
        print(
            f"{side:12} {kind:30} {len(rs):5} {flagged / len(rs):8.1%} {by_line:8} "
            f"{by_evidence:11} {statistics.median(cpu):8.1f} {max(cpu):8.1f}"
        )
    print("\nevidence alone at other thresholds (flagged share of wins):")
    print(f"{'threshold':>9} {'honest':>7} " + " ".join(f"{k[:14]:>14}" for k in CLAIRVOYANT))
    for at in (1.0, 2.0, 3.0, 4.0, 6.0):
        honest_share = _share(wins, "honest", None, at)
        row = " ".join(f"{_share(wins, 'clairvoyant', k, at):14.1%}" for k in CLAIRVOYANT)
        print(f"{at:9g} {honest_share:7.1%} {row}")
    _held_out(wins)
    honest_evidence = sorted(r["verdict"]["evidence"] for r in wins if r["side"] == "honest")
    if honest_evidence:
        print(
            f"honest evidence: p50 {percentile(honest_evidence, 0.5):.2f}, p99 "
            f"{percentile(honest_evidence, 0.99):.2f}, max {honest_evidence[-1]:.2f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=22)
    parser.add_argument("--games", type=int, default=5, help="games per deal and side")
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--first", default="2026-11-01", help="the first day's date")
    parser.add_argument(
        "--save", help="write every game as JSON lines (appended: games already there are kept)"
    )
    parser.add_argument("--load", help="judge the games of a saved file again (no play)")
    parser.add_argument("--report", help="print the table of a saved file (no play, no judging)")
    parser.add_argument("--flag-evidence", type=float, default=K.FLAG_EVIDENCE)
    parser.add_argument("--line-share", type=float, default=K.LINE_SHARE)
    args = parser.parse_args()
    print(machine(), flush=True)
    if args.report:
        with open(args.report) as saved:
            report([json.loads(line) for line in saved], args.flag_evidence, args.line_share)
        return
    results: list[dict[str, Any]] = []
    if args.load:
        with open(args.load) as saved:
            work: Iterable[Any] = [json.loads(line) for line in saved]
        task: Callable[[Any], dict[str, Any]] = judge_again
    else:
        deals = daily_deals(args.deals, dt.date.fromisoformat(args.first))
        print(
            f"{len(deals)} daily deals, {args.games} honest and {args.games} clairvoyant games each"
        )
        results = []
        if args.save and Path(args.save).exists():  # a run cut short goes on where it stopped
            with open(args.save) as saved:
                results = [json.loads(line) for line in saved]
        done = {(r["side"], r["seed"]) for r in results}
        work, task = jobs(deals, args.games, done), play_and_judge
    out = open(args.save, "a") if args.save else None  # noqa: SIM115 (kept open while the games run)
    with multiprocessing.Pool(args.workers) as pool:
        for r in pool.imap_unordered(task, work):
            results.append(r)
            if out:
                out.write(json.dumps(r) + "\n")
                out.flush()
            v = r.get("verdict")
            print(
                f"{r['side']:12} {r['kind']:30} {r['code'][:14]}… "
                + (
                    f"won, evidence {v['evidence']:6.2f} "
                    f"({v['choosing']:.2f} + {v['keeping']:.2f}), "
                    f"line {v['line_share']:.0%}, "
                    f"{'FLAGGED' if v['flagged'] else 'not flagged'}, {v['seconds']:.1f} s"
                    if v
                    else f"not won ({len(r['actions'])} actions)"
                ),
                flush=True,
            )
    report(results, args.flag_evidence, args.line_share)


if __name__ == "__main__":
    main()
