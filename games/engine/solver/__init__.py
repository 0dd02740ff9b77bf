"""Solvers for both games: pure Python, no Django, used by the daily-deal job,
the replay checks and the Seahaven dead-end proof (issue 5).

    >>> from games.engine import new_game, solve
    >>> result = solve(new_game("SH1-C4-AAAAAJ2"))
    >>> result.outcome, len(result.line)

``solve`` (``registry.py``: each game's declaration names its solver) searches
from the game's *current* position (a fresh deal or a game in progress) with
full knowledge of every card, so it is for the server only: a
player must never see its line, nor learn more from it than what the rules
allow (RULES.md C10, the dead end).

For speed the searches generate their moves on a compact copy of the position,
not through :class:`Game`; what they leave out is stated once, on the engine's
position, by each module's ``searched``, and ``tests/games/engine/solver/test_moves.py``
pins their moves to the engine's legal moves on random positions of every
variant. Every line they return is a list of the engine's own resolved actions
and replays to a win through :meth:`Game.apply` (the tests check it on hundreds
of deals).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from enum import StrEnum

from ..actions import Move, Stock


class Outcome(StrEnum):
    SOLVED = "solved"
    """``line`` wins the game from the position searched."""
    UNWINNABLE = "unwinnable"
    """Every position reachable from here was searched: none is won."""
    UNKNOWN = "unknown"
    """The node or time budget ran out first."""


@dataclass(frozen=True)
class Solution:
    outcome: Outcome
    line: tuple[Move | Stock, ...] = ()
    """The winning actions (empty unless solved), each as :meth:`Game.apply` returns it."""
    nodes: int = 0
    """Positions expanded."""
    seconds: float = 0.0


@dataclass
class Budget:
    """How much a search may spend: at most ``nodes`` positions and ``seconds`` of time."""

    nodes: int = 200_000
    seconds: float | None = None
    started: float = field(default_factory=time.perf_counter)

    def exhausted(self, expanded: int) -> bool:
        if expanded >= self.nodes:
            return True
        return self.seconds is not None and time.perf_counter() - self.started > self.seconds


__all__ = ["Budget", "Outcome", "Solution"]
