"""Winning lines for the tests: the product solver's (``games/engine/solver/``),
played through the engine step by step.

:func:`find_win` returns the list of actions that wins a deal, each as the
engine's :meth:`Game.apply` returned it, or ``None`` when the solver's node
budget runs out first — so no test can hang on it. The solvers keep their own
compact copy of the rules; any move the engine refuses but they allow shows up
here as an :class:`EngineDisagrees` error naming the step.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Iterable
from typing import Any

from games.engine import (
    Game,
    GameCode,
    IllegalActionError,
    Move,
    Stock,
    new_game,
    replay,
    solve,
)
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


def winning_line(code: str) -> list[dict[str, Any]]:
    result = solve(new_game(code))
    assert result.outcome is Outcome.SOLVED, code
    return [a.to_json() for a in result.line]


WINNABLE = "SH1-C4-AAAAAJ2"


@functools.cache
def lost_deal() -> tuple[str, Move]:
    """A one-cell deal the solver proves unwinnable with a first move that keeps
    the cell full and leaves moves to make (not a C10 dead end): only the proof
    can tell the player it is lost."""
    for number in range(1, 500):
        code = str(GameCode("SH1", "C1", number))
        game = new_game(code)
        for move in game.legal_moves:
            after = game.copy()
            after.apply(move)
            if move.target[0] != "c" and not after.view()["dead_end"]:
                break
        else:
            continue
        if solve(game, nodes=30_000).outcome is Outcome.UNWINNABLE:
            return code, move
    raise AssertionError("no provably lost one-cell deal among the first 500")


LOSE_CODE = "SH1-C1-AAAJE2V"  # a 1-cell deal the solver wins (3 % of them are)


def losing_line() -> tuple[list[dict[str, Any]], int]:
    """From ``LOSE_CODE``: ten moves of the solver's winning line, then seeded
    random moves (each changing something) into a dead end. Returns the actions
    and, found by solving every position on the way (no binary search), how
    many undos back from the dead end the last winnable position is."""
    game = new_game(LOSE_CODE)
    line = solve(game).line
    rng = random.Random(0)
    played = [game.apply(action).to_json() for action in line[:10]]
    while not game.is_dead_end():
        assert len(played) < 90, "the seeded play found no dead end"
        moves = [m for m in game.legal_moves if game.changes_something(m)]
        played.append(game.apply(rng.choice(moves)).to_json())
    outcomes = []
    for n in range(len(played) + 1):
        outcomes.append(solve(replay(LOSE_CODE, played[:n]), nodes=300_000).outcome)
    last = max(n for n, o in enumerate(outcomes) if o is Outcome.SOLVED)
    # Monotone: won up to ``last``, then proven lost to the end.
    assert outcomes[: last + 1] == [Outcome.SOLVED] * (last + 1), outcomes
    assert set(outcomes[last + 1 :]) == {Outcome.UNWINNABLE}, outcomes
    return played, len(played) - last
