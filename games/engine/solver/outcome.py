"""What a search returns and what it may spend: shared by both solvers
(``easy_harp.py``, ``seahaven.py``) and re-exported by the package."""

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
