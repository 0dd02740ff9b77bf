"""Solvers for both games: pure Python, no Django, used by the daily-deal job,
the replay checks and the Seahaven dead-end proof (issue 5).

    >>> from games.engine import new_game
    >>> from games.engine.solver import solve
    >>> result = solve(new_game("SH1-C4-AAAAAJ2"))
    >>> result.outcome, len(result.line)

``solve`` searches from the game's *current* position (a fresh deal or a game in
progress) with full knowledge of every card, so it is for the server only: a
player must never see its line, nor learn more from it than what the rules
allow (RULES.md C10, the dead end).

The searches keep their own compact copy of the rules for speed; every line
they return is a list of the engine's own resolved actions and replays to a win
through :meth:`Game.apply` (the tests check it on hundreds of deals).
"""

from __future__ import annotations

from ..base import Game
from .easy_harp import solve_easy_harp
from .outcome import Budget, Outcome, Solution
from .seahaven import solve_seahaven


def solve(game: Game, *, nodes: int = 200_000, seconds: float | None = None) -> Solution:
    """Search ``game``'s current position for a win within the budget."""
    budget = Budget(nodes=nodes, seconds=seconds)
    if game.code.game == "SH1":
        return solve_seahaven(game, budget)
    return solve_easy_harp(game, budget)


__all__ = ["Budget", "Outcome", "Solution", "solve"]
