"""Winning lines for the tests: the product solver's (``games/engine/solver/``),
played through the engine step by step.

:func:`find_win` returns the list of actions that wins a deal, each as the
engine's :meth:`Game.apply` returned it, or ``None`` when the solver's node
budget runs out first — so no test can hang on it. The solvers keep their own
compact copy of the rules; any move the engine refuses but they allow shows up
here as an :class:`EngineDisagrees` error naming the step.
"""

from __future__ import annotations

from collections.abc import Iterable

from games.engine import Game, IllegalActionError, Move, Stock, new_game, solve
from games.engine.solver import Outcome, Solution

DEFAULT_BUDGET = 200_000
"""Positions the solver may expand before it gives up."""


class EngineDisagrees(AssertionError):
    """The engine refused a step of a line the solver found legal."""


def find_win(code: str, budget: int = DEFAULT_BUDGET) -> list[Move | Stock] | None:
    """A winning line for deal ``code`` as resolved engine actions, or None."""
    result = solve(new_game(code), nodes=budget)
    return play_line(code, result.line) if result.outcome is Outcome.SOLVED else None


def play_line(code: str, plan: Iterable[Move | Stock]) -> list[Move | Stock]:
    """Play ``plan`` through the engine from the deal; return what ``apply`` returned."""
    game = new_game(code)
    line: list[Move | Stock] = []
    for index, action in enumerate(plan):
        try:
            resolved = game.apply(action)
        except IllegalActionError as exc:
            raise EngineDisagrees(
                f"{code}: step {index} {action!r} refused ({exc.code}: {exc.message}); "
                f"position: {game.view(full=True)['piles']}"
            ) from exc
        assert isinstance(resolved, Move | Stock)
        line.append(resolved)
    return line


def assert_wins(game: Game, solution: Solution) -> None:
    """The solver's line wins from ``game`` on a copy, each action coming back
    unchanged from :meth:`Game.apply` (it is already resolved)."""
    assert solution.outcome is Outcome.SOLVED
    board = game.copy()
    for index, action in enumerate(solution.line):
        assert not board.won, f"won before the end of the line, at step {index}"
        assert board.apply(action) == action
    assert board.won
