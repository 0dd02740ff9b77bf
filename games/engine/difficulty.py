"""How hard a deal is, predicted before anyone plays it (issue 27, "How hard it
was"): the solver's statistics and simple playouts, combined into a level.

    >>> from games.engine.difficulty import predict
    >>> found = predict("SH1-C4-AAAAAJ2")
    >>> found.level, found.name, found.to_json()["nodes"]

Four figures, each a count — none names a card, a move or a position, so the
daily page may publish them beside the commitment while the day runs:

* ``nodes``: positions the solver expanded to prove the deal from its start
  (a deal the solver wins straight away is easy to read; one it must dig
  through is not);
* ``line`` against ``bound``: the solver's winning line against a lower bound on
  any winning line — every card not home must be brought home, one action each;
* ``winning_first`` of ``first_moves``: how many of the distinct legal first
  moves (moves that lead to the same position are one) still lead to a proven
  win, each searched within a budget of its own;
* ``playout_wins`` of ``playouts``: how many games a fixed simple strategy
  (:func:`playout`) wins, each seeded from the deal, so the same deal always
  gives the same count; and ``playout_home``, the cards those games brought
  home on average — the graded form of the same signal, since the simple
  strategy rarely wins a whole game (never, on the Easy Harp days measured).

:func:`level` turns them into a level 1-5 (``LEVELS``) by a score compared with
each variant's cuts (``VariantSpec.levels``, its declaration), found on real candidate deals
(``bench/difficulty.py``).

The solver and the playouts see every card: in Easy Harp these figures derive
from hidden cards. They are counts about the whole deal, the same for everyone,
and say nothing of where any card lies — the only reason they may be shown
while the day runs.
"""

from __future__ import annotations

import hashlib
import math
import random
import time
from dataclasses import dataclass
from typing import Any

from .actions import Move, Stock, Undo
from .base import Game
from .codes import GameCode
from .registry import VARIANTS, new_game, solve
from .solver import Outcome

LEVELS: tuple[str, ...] = ("easy", "moderate", "hard", "tough", "fiendish")
"""Level ``n`` (1-5) is named ``LEVELS[n - 1]``; the client translates the name."""

PLAYOUTS = 16
"""Simple playouts a prediction plays: the cards they bring home vary by about a
third from one to the next; sixteen make the mean steady to a few cards, at
about 50 ms each in Seahaven and 150 ms in Easy Harp."""

PLAYOUT_STEPS = 600
"""A playout gives up after this many actions (the solver's lines: 70-100 in
Seahaven, 290-480 in Easy Harp)."""

FIRST_MOVE_NODES = 5_000
"""The least search budget of each first move, and twice the deal's own proof
when that is more: a winnable first move is most often proven in a few hundred
positions in Seahaven, a few thousand in Easy Harp; one that needs more counts
as not winning."""

FIRST_MOVES_SHARE = 1
"""The first-move searches of a prediction expand at most this many times its
proof's node budget (``nodes``) in all, each taking what its own budget needs of
what is left: on the calibration days (``bench/difficulty.py``, 2026-01-01 on)
they took at most 44,211 of Easy Harp's 60,000 (21 days), 8,419 of Seahaven 4
cells' 200,000 and 1,481 of 1 cell's 100,000 (10 days each), so none of those
predictions changes. A budget of positions, never of time
(issue 38): the same deal gets the same figures, and so the same level, on any
machine however busy — a wall-clock stop once published a day as level 2 from
1 of its 16 playouts that all 16 made level 1. The cost stays bounded all the
same: the proof, these searches and the playouts (``PLAYOUTS`` of at most
``PLAYOUT_STEPS`` actions) at most three times the proof's budget."""


@dataclass(frozen=True)
class Prediction:
    """A deal's difficulty statistics and the level they make (:func:`predict`)."""

    solved: bool
    """The solver proved the deal winnable within its budget; without a proof the
    other figures are not computed and the level is unknown (``level`` 0)."""
    nodes: int
    line: int
    bound: int
    first_moves: int
    winning_first: int
    probed_first: int
    """First moves searched before the node budget of them all ran out
    (``FIRST_MOVES_SHARE``; ``first_moves`` normally)."""
    playouts: int
    playout_wins: int
    playout_home: int
    """Cards the playouts brought home, on average (rounded down)."""
    score: float
    level: int
    calibrated: bool = True
    """The level comes from the variant's own cuts (``VariantSpec.levels``); False:
    from the generic ones, a first guess for a variant not yet measured."""

    @property
    def name(self) -> str:
        return LEVELS[self.level - 1] if self.level else "unknown"

    def to_json(self) -> dict[str, Any]:
        """The published block: counts and the level only."""
        return {
            "level": self.level or None,
            "name": self.name,
            "nodes": self.nodes,
            "line": self.line,
            "bound": self.bound,
            "first_moves": self.first_moves,
            "winning_first": self.winning_first,
            "probed_first": self.probed_first,
            "playouts": self.playouts,
            "playout_wins": self.playout_wins,
            "playout_home": self.playout_home,
            "score": round(self.score, 3),
            "calibrated": self.calibrated,
        }


# --- the level -------------------------------------------------------------------------

DEFAULT_THRESHOLDS = (0.25, 0.45, 0.60, 0.75)
"""The cuts of a variant that declares none (``VariantSpec.levels``: a new
game's, a test's), whose predictions say they are not ``calibrated``. Each
declared variant's own cuts are found by ``bench/difficulty.py`` (30 dates a
variant: the 20th, 40th, 60th and 80th percentiles of its first proven
candidates' scores), so on its own daily deals each level is about a fifth of
the days — the level says how this day compares with that variant's other
days, the variant itself how hard the game is."""


def variant_levels(variant_id: str) -> tuple[float, ...] | None:
    """The cuts ``variant_id`` declares (``VariantSpec.levels``), or None."""
    found = VARIANTS.get(variant_id)
    return found[1].levels if found else None


def score(*, nodes: int, line: int, bound: int, winning: float, home: float) -> float:
    """0 (trivial) to about 1 (fiendish): the mean of four parts, each 0-1 —
    the solver's work (log scale, 10 positions to 100,000), the line's excess
    over the bound (three times the bound or more: 1), the share of first
    moves that lose, and the share of the cards the simple playouts left out
    (``home``: the share they brought home; 1 when they all win)."""
    work = min(1.0, max(0.0, (math.log10(max(nodes, 1)) - 1) / 4))
    detour = min(1.0, max(0.0, (line / bound - 1) / 2)) if bound else 0.0
    return (work + detour + (1 - winning) + (1 - home)) / 4


def level(value: float, thresholds: tuple[float, ...] = DEFAULT_THRESHOLDS) -> int:
    """1-5: one more than the thresholds ``value`` reaches."""
    return 1 + sum(value >= t for t in thresholds)


# --- the playouts ----------------------------------------------------------------------


def _position(game: Game) -> tuple[object, ...]:
    """The cards' places, without the score or the history: what a playout must
    not come back to."""
    return (tuple(tuple(c.id for c in pile) for pile in game.piles.values()), game.won)


def _take_back(move: Move | Stock) -> bool:
    """A card back from a foundation: never needed to win (the solvers never
    make one either), so neither the playouts nor the first moves count it."""
    return isinstance(move, Move) and move.source[0] == "f"


def _standing(game: Game) -> float:
    """How well a position stands, for the simple strategy: cards home count
    most; a card a foundation waits for costs one for each card above it;
    free cells and empty columns are worth a little."""
    wanted = {(suit, len(game.piles[spot]) + 1) for spot, suit in game.spot_suit.items()}
    home = _home(game)
    buried = 0
    for pile_id in game.columns + game.cells:
        pile = game.piles[pile_id]
        for depth, card in enumerate(reversed(pile)):
            if (card.suit, card.rank) in wanted:
                buried += depth
    free = sum(not game.piles[c] for c in game.cells)
    empty = sum(not game.piles[t] for t in game.columns)
    return 4 * home - buried + 0.5 * free + empty


PLAYOUT_NOISE = 1.5
"""The random part of a playout's choice (added to :func:`_standing`): enough
that playouts of one deal differ, too little to undo a card's worth of burial."""


def playout(start: Game, rng: random.Random, *, steps: int = PLAYOUT_STEPS) -> int:
    """Play one game from ``start`` (unchanged) by a fixed simple strategy and
    say how many cards it brought home (all of them: it won). The strategy:
    send a card home when one can go (the first listed); else play the move
    whose position stands best (:func:`_standing`, plus a little noise from
    ``rng``) among those that reach a position not seen in this playout; never
    a card back from a foundation. It stops when nothing new is reachable, or
    after ``steps`` actions."""
    game = start.copy()
    seen = {_position(game)}
    for _ in range(steps):
        if game.won:
            break
        moves = [
            m for m in game.generate_moves() if not (isinstance(m, Move) and m.source[0] == "f")
        ]
        home = next((m for m in moves if isinstance(m, Move) and m.target[0] == "f"), None)
        if home is not None:
            game.play(home)
            seen.add(_position(game))
            continue
        best: tuple[float, Move | Stock] | None = None
        for move in moves:
            game.play(move)
            if _position(game) not in seen:
                value = _standing(game) + rng.random() * PLAYOUT_NOISE
                if best is None or value > best[0]:
                    best = (value, move)
            game.play(Undo())
        if best is None:
            break
        game.play(best[1])
        seen.add(_position(game))
    return _home(game) - _home(start)


def _seed(code: GameCode) -> int:
    return int.from_bytes(hashlib.sha256(f"difficulty:{code}".encode("ascii")).digest()[:8], "big")


def _home(game: Game) -> int:
    return sum(len(game.piles[spot]) for spot in game.foundations)


def playouts_home(
    start: Game, *, playouts: int = PLAYOUTS, deadline: float | None = None
) -> list[int]:
    """The cards each of ``playouts`` seeded playouts brings home: the same list
    for the same position — shorter if ``deadline`` (``time.perf_counter``)
    passes first (at least one is played)."""
    rng = random.Random(_seed(start.code))
    home: list[int] = []
    while len(home) < playouts and (not home or deadline is None or time.perf_counter() < deadline):
        home.append(playout(start, rng))
    return home


# --- the first moves -------------------------------------------------------------------


def first_moves(start: Game) -> list[Game]:
    """The positions the distinct legal first moves reach (one per position: a
    card into one free cell or another is one move)."""
    reached: dict[tuple[object, ...], Game] = {}
    for move in start.generate_moves():
        if _take_back(move):
            continue
        board = start.copy()
        board.apply(move)
        reached.setdefault(_position(board), board)
    return list(reached.values())


# --- the prediction --------------------------------------------------------------------


def predict(code: GameCode | str, **budgets: Any) -> Prediction:
    """The deal ``code``'s difficulty from its start (:func:`predict_game`)."""
    return predict_game(new_game(code), **budgets)


def predict_game(
    start: Game,
    *,
    nodes: int = 200_000,
    first_move_nodes: int = FIRST_MOVE_NODES,
    playouts: int = PLAYOUTS,
    seconds: float | None = None,
    thresholds: tuple[float, ...] | None = None,
) -> Prediction:
    """The difficulty of the position ``start`` (unchanged; a deal's start, or a
    position built by a test): the solver's proof within ``nodes`` positions,
    each distinct first move searched within ``first_move_nodes`` (or twice the
    proof's), all of them within ``FIRST_MOVES_SHARE`` × ``nodes``, and
    ``playouts`` simple playouts. Deterministic: the budgets are counted in
    positions and actions, never in time, so a slow machine gives the same
    prediction as a fast one (issue 38). ``seconds``, a caller's stop in time
    (none of the service's passes one), makes it depend on the machine again:
    the searches and playouts stop when it is spent, which ``probed_first`` and
    ``playouts`` show."""
    deadline = None if seconds is None else time.perf_counter() + seconds
    proof = solve(start, nodes=nodes, seconds=seconds)
    bound = sum(len(start.piles[p]) for p in start.pile_ids if p not in start.foundations)
    if proof.outcome is not Outcome.SOLVED:
        return Prediction(False, proof.nodes, 0, bound, 0, 0, 0, 0, 0, 0, 0.0, 0)
    children = first_moves(start)
    budget = min(nodes, max(first_move_nodes, 2 * proof.nodes))
    spare = FIRST_MOVES_SHARE * nodes  # positions left for the first moves together
    winning = probed = 0
    for child in children:
        left = None if deadline is None else deadline - time.perf_counter()
        if spare <= 0 or (left is not None and left <= 0):
            break
        probed += 1
        found = solve(child, nodes=min(budget, spare), seconds=left)
        spare -= found.nodes
        winning += found.outcome is Outcome.SOLVED
    home = playouts_home(start, playouts=playouts, deadline=deadline)
    wins = sum(cards == bound for cards in home)
    value = score(
        nodes=proof.nodes,
        line=len(proof.line),
        bound=bound,
        winning=winning / len(children) if children else 0.0,
        home=sum(home) / (len(home) * bound) if home and bound else 0.0,
    )
    declared = variant_levels(start.code.variant_id)
    calibrated = thresholds is not None or declared is not None
    if thresholds is None:
        thresholds = declared or DEFAULT_THRESHOLDS
    return Prediction(
        True,
        proof.nodes,
        len(proof.line),
        bound,
        len(children),
        winning,
        probed,
        len(home),
        wins,
        sum(home) // len(home) if home else 0,
        value,
        level(value, thresholds),
        calibrated,
    )


__all__ = [
    "LEVELS",
    "PLAYOUTS",
    "Prediction",
    "level",
    "playout",
    "playouts_home",
    "predict",
    "predict_game",
    "score",
    "variant_levels",
]
