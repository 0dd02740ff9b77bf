"""Where a game went wrong (issue 27): the last position of its line the solver
proves winnable, and the action after it that lost the deal.

    >>> from games.engine import Move, new_game
    >>> from games.engine.postmortem import last_winnable
    >>> found = last_winnable(new_game("SH1-C4-AAAAAAB"), [Move("t8", "c3")])
    >>> found.index, found.settled, found.losing
    (0, True, Move('t8', 'c3'))

The line is the positions a game went through and still stands on: its start,
then the position after each action that stands (an undone action is not on
the line). Winnability is monotone along a line — a position from which a
winnable one can be reached is winnable — so the winnable positions are a
prefix of the line and a binary search finds its end in about log2(n) solver
calls.

The solver searches with full knowledge of every card. In Easy Harp the answer
therefore derives from cards the player has not seen (face down, or in the
stock): it is for the server, and may only be shown when those cards no longer
matter (after the day).
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass

from .actions import Action, Move, Stock, Undo
from .base import Game
from .registry import solve
from .solver import Outcome


@dataclass(frozen=True)
class PostMortem:
    """What :func:`last_winnable` found on a line of ``length`` actions."""

    index: int | None
    """The line's last position proven winnable, as the number of actions
    played to reach it (0: the start); None when no position was proven so."""
    settled: bool
    """The answer is proven: the position after ``index`` is proven lost (or
    there is none: the whole line is winnable), or, ``index`` None, every
    position of the line is proven lost. False when a search ran out of its
    budget first, or the time ran out before the search met its end."""
    probes: int
    """Solver calls made."""
    length: int
    """Actions on the line (its positions are ``length + 1``)."""
    continuation: tuple[Move | Stock, ...] = ()
    """The solver's winning line from position ``index``, each action as
    :meth:`Game.apply` returns it; empty when ``index`` is None."""
    losing: Move | Stock | None = None
    """The action played from position ``index`` (it made the deal lost when
    ``settled``); None when ``index`` is None or is the end of the line."""


def last_winnable(
    start: Game,
    actions: Iterable[Action],
    *,
    nodes: int = 100_000,
    seconds: float = 2.0,
    end_lost: bool = False,
) -> PostMortem:
    """Find, by binary search with ``solve``, the last position proven winnable
    on the line that ``actions`` play from ``start`` (``start`` is not changed).

    ``actions`` are applied in order through :meth:`Game.apply`; an ``Undo``
    takes the last action off the line (a refused action raises the engine's
    error). Each probe may expand ``nodes`` positions; all of them together
    take at most about ``seconds`` (counted once the line is replayed), after
    which the search stops and says it is not settled. ``end_lost``: the
    caller knows the line's last position is lost (a dead end, or proven
    earlier), so it is not probed, and its word is taken.

    A probe that runs out of budget counts as "not winnable" for the search
    (a winnable position is most often found fast; a lost one may take long to
    prove), and the answer is then not settled."""
    board = start.copy()
    positions = [board.copy()]
    line: list[Move | Stock] = []
    for action in actions:
        if isinstance(action, Undo):
            board.apply(action)
            positions.pop()
            line.pop()
            continue
        resolved = board.apply(action)
        assert isinstance(resolved, Move | Stock)  # only an Undo returns an Undo
        line.append(resolved)
        positions.append(board.copy())
    end = len(line)
    deadline = time.perf_counter() + seconds
    lost = end if end_lost else end + 1  # the nearest position proven lost; end + 1: none
    won: int | None = None
    continuation: tuple[Move | Stock, ...] = ()
    probes = 0
    low, high = 0, end - 1 if end_lost else end
    while low <= high:
        left = deadline - time.perf_counter()
        if left <= 0:
            break
        mid = (low + high + 1) // 2
        probes += 1
        solution = solve(positions[mid], nodes=nodes, seconds=left)
        if solution.outcome is Outcome.SOLVED:
            won, continuation, low = mid, solution.line, mid + 1
        else:
            if solution.outcome is Outcome.UNWINNABLE:
                lost = min(lost, mid)
            high = mid - 1
    if won is None:
        return PostMortem(None, lost == 0, probes, end)
    return PostMortem(
        won,
        lost == won + 1,
        probes,
        end,
        continuation,
        line[won] if won < end else None,
    )


__all__ = ["PostMortem", "last_winnable"]
