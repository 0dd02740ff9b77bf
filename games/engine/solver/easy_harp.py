"""The Easy Harp solver (RULES.md Part A): best-first searches with whole-deal knowledge.

:func:`solve_easy_harp` searches from the game's current position, seeing every face-down
card and the stock order, and returns a line of the engine's own resolved actions
(``Move`` and ``Stock``) that wins. The line becomes the daily deal's par, so after the
first win is found the solver spends a little more effort making it short.

**The position.** Cards are numbers ``suit * 13 + rank - 1`` (the engine's id modulo 52;
twins are the same number). A :class:`State` holds the columns (``bytes``, bottom to
top), their face-down counts, the eight foundation heights, and the stock and waste read
as one *draw sequence*: the waste bottom to top, then the stock in the order it will be
drawn. Drawing never reorders that sequence and a new pass restarts it from the first
card (C15), so the stock and the waste are just the sequence positions still there
(``deck``) plus a pointer (``ptr``): the positions below it are on the waste.

Since "passes are unlimited and free" (A), every card of the sequence can be brought to
the waste top at any time; only the number of taps differs. So one search move is "tap
until card X shows, then play it", emitting the ``Stock()`` actions it needs, and the
stock is no part of what makes two positions the same (see :meth:`_Search.key`).

**The search.** Best-first: the position expanded next is the one with the lowest
``cost + lam * actions so far``, where the cost estimates the work left
(:meth:`_Search.cost`): face-down cards, cards piled on them, cards out of order, cards
not home, and above all cards sent home while a card of the other colour one rank lower
is still in a column (it may need that card to build on). The moves tried are pruned
hard (each pruning says why next to it), which makes the search incomplete: it never
takes a card back from a foundation, for one, which the app allows (A, "Taking back
from a foundation"). An exhausted search therefore proves nothing and the solver
answers ``UNKNOWN``, never ``UNWINNABLE``.

:func:`searched` states the pruning of the moves from a column once, on the engine's
position; ``tests/games/engine/solver/test_moves.py`` checks on random positions that the
search makes exactly those of the engine's legal moves, and that every child, its stock
taps included, is the engine's position after the same actions.

A search that goes wrong on a deal goes wrong early and stays lost however long it
runs, while most deals fall in a few hundred positions; so several searches with
differently weighted costs (:data:`PORTFOLIO`) take turns, each with a node cap that
doubles every round, until one wins or the budget is spent.

**The line.** Every action counts towards the par, stock taps included (C5), and taps
are most of a raw line. So, cheaply (:func:`_shorten`): the moves are put in an order
that needs fewer taps (two moves on different piles commute, :func:`_reorder`); a card
that a later move takes from the stock is played as soon as the taps pass over it, when
nothing in between must come first (:func:`_replay`); and a card parked on a column and
moved on untouched goes straight to where it ends (:func:`_detours`). Then, within the
budget, one more search that weighs the actions played as much as the work left
(:data:`IMPROVE`) and drops every line not shorter than the first. The line returned is
replayed through :meth:`Game.apply` on a copy of the game first.

The parts are in sibling modules, each importing only the ones before it:
``easy_harp_position.py`` the position and its moves, ``easy_harp_search.py`` the search
and its pruning, ``easy_harp_shorten.py`` the line's rewriting. This module runs them and
keeps every name they had here.
"""

from __future__ import annotations

import time

from ..actions import Move, Stock
from ..base import Game
from ..errors import EngineError
from . import Budget, Outcome, Solution
from .easy_harp_position import (
    HOME,
    KING,
    N_CARDS,
    N_COLUMNS,
    OTHER_SUITS,
    RANK,
    RED,
    SPOT,
    SUIT,
    WASTE,
    Link,
    Op,
    State,
    Step,
    _Work,
    builds,
    safe,
    spot_for,
)
from .easy_harp_search import Params, _Search, searched
from .easy_harp_shorten import SHORTEN_REPLAYS, _length, _shorten

__all__ = [
    "FIRST_CAP",
    "HOME",
    "IMPROVE",
    "IMPROVE_NODES",
    "KING",
    "N_CARDS",
    "N_COLUMNS",
    "OTHER_SUITS",
    "PORTFOLIO",
    "RANK",
    "RED",
    "SHORTEN_REPLAYS",
    "SPOT",
    "SUIT",
    "WASTE",
    "Link",
    "Op",
    "Params",
    "State",
    "Step",
    "builds",
    "probe_easy_harp",
    "safe",
    "searched",
    "solve_easy_harp",
    "spot_for",
]

PORTFOLIO = (
    Params(),
    Params(fd=15),
    Params(lam=0.1),
    Params(harm=2),
    Params(fd=15, dirty=True),
    Params(empty=2),
    Params(out=4),
)
"""The searches that take turns until one wins (each wins deals the others lose)."""
FIRST_CAP = 500
"""Positions each search of :data:`PORTFOLIO` may expand in the first round (doubled each
round): most deals fall in a few hundred."""
IMPROVE = Params(lam=1.0)
"""The search that looks for a shorter line once one is found."""
IMPROVE_NODES = 3000


def _start(game: Game) -> tuple[bytes, State]:
    """The draw sequence and the game's position."""
    waste = [c.id % 52 for c in game.piles["w"]]
    stock = [c.id % 52 for c in reversed(game.piles["s"])]  # the top is drawn first
    seq = bytes(waste + stock)
    start = State(
        tuple(bytes(c.id % 52 for c in game.piles[t]) for t in game.columns),
        tuple(game.down[t] for t in game.columns),
        tuple(len(game.piles[f]) for f in game.foundations),
        bytes(range(len(seq))),
        len(waste),
    )
    return seq, start


def _actions(game: Game, steps: list[Step]) -> tuple[Move | Stock, ...]:
    def pile(x: int) -> str:
        if x < N_COLUMNS:
            return game.columns[x]
        return "w" if x == WASTE else game.foundations[x - SPOT]

    out: list[Move | Stock] = []
    for taps, src, dst, n in steps:
        out.extend([Stock()] * taps)
        out.append(Move(pile(src), pile(dst), n))
    return tuple(out)


def _wins(game: Game, line: tuple[Move | Stock, ...]) -> bool:
    """Does ``line`` bring every card home through the engine itself (on a copy)?"""
    copy = game.copy()
    try:
        for action in line:
            copy.apply(action)
    except EngineError:
        return False
    return sum(len(copy.piles[f]) for f in copy.foundations) == N_CARDS


def _search(
    game: Game, budget: Budget, portfolio: tuple[Params, ...]
) -> tuple[Outcome, bytes, State, State, list[Step], list[Step], int]:
    """Search ``game``'s position with the searches of ``portfolio`` taking turns (see
    the module): ``(outcome, draw sequence, position, position settled, settling steps,
    steps found, nodes expanded)``, the steps unshortened."""
    seq, start = _start(game)
    w = _Work(start, seq, None)
    root = w.settle()
    first = w.steps
    expanded = 0
    cap = FIRST_CAP
    searching = list(portfolio)
    found: list[Step] | None = [] if sum(root.found) == N_CARDS else None
    while found is None:
        for params in list(searching):
            found, expanded, exhausted = _Search(seq, params).run(root, budget, expanded, cap)
            if found is not None:
                break
            if budget.exhausted(expanded):
                return Outcome.UNKNOWN, seq, start, root, first, [], expanded
            if exhausted:
                searching.remove(params)
        if not searching:
            # Every search ran out of positions; they leave moves out, so this proves
            # nothing (see the module's docstring).
            return Outcome.UNKNOWN, seq, start, root, first, [], expanded
        cap *= 2
    return Outcome.SOLVED, seq, start, root, first, found, expanded


def probe_easy_harp(
    game: Game, budget: Budget, portfolio: tuple[Params, ...] = PORTFOLIO
) -> tuple[Move | Stock, ...] | None:
    """A winning line from ``game``'s position as the searches first find it (not
    shortened: cheap), or None when the budget runs out first. ``games/engine/knew.py``
    asks it many times per game, with one search of :data:`PORTFOLIO` at a time or all."""
    if game.won:
        return ()
    outcome, _, _, _, first, found, _ = _search(game, budget, portfolio)
    return _actions(game, first + found) if outcome is Outcome.SOLVED else None


def solve_easy_harp(game: Game, budget: Budget) -> Solution:
    """Search ``game``'s current position for a win within ``budget`` (see the module)."""
    started = time.perf_counter()

    def answer(outcome: Outcome, line: tuple[Move | Stock, ...], nodes: int) -> Solution:
        return Solution(outcome, line, nodes, time.perf_counter() - started)

    if game.won:
        return answer(Outcome.SOLVED, (), 0)
    outcome, seq, start, root, first, found, expanded = _search(game, budget, PORTFOLIO)
    if outcome is not Outcome.SOLVED:
        return answer(outcome, (), expanded)
    raw = first + found
    best = _shorten(seq, start, raw)
    if not budget.exhausted(expanded):
        shorter, expanded, _ = _Search(seq, IMPROVE).run(
            root, budget, expanded, IMPROVE_NODES, _length(found)
        )
        if shorter is not None:
            shorter = _shorten(seq, start, first + shorter)
            if _length(shorter) < _length(best):
                best = shorter
    line = _actions(game, best)
    if not _wins(game, line):  # pragma: no cover - a bug in the rewriting; keep the search's
        line = _actions(game, raw)
        if not _wins(game, line):
            raise AssertionError(f"the Easy Harp solver found a line that does not win {game.code}")
    return answer(Outcome.SOLVED, line, expanded)
