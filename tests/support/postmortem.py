"""Games that went wrong at a known move, for the tests of where a game went
wrong (``games/engine/postmortem.py``, the analysis job, the replay's page): a
deal the solver wins, played along the solver's own line for a few moves, then
a move after which the solver proves the deal lost (found by trying every legal
move), then a few more moves. Pure engine: no database."""

from __future__ import annotations

from games.engine import Game, Move, Stock, new_game, solve
from games.engine.solver import Outcome

WON = "SH1-C4-AAAAAAB"
"""Seahaven 4-cell deal 1: the solver wins it in about 50 nodes."""
LOST = "SH1-C1-AAAAAAC"
"""Seahaven 1-cell deal 2: proven lost from its start, in 2 nodes."""
HARP = "EH1-N-AAAAAAV"
"""Easy Harp deal 21: the quickest of the first thirty for the solver."""


def losing_game(k: int) -> tuple[list[Move | Stock], Move]:
    """``WON`` along the solver's line for ``k`` moves, then a move after which the
    solver proves it lost, then up to three more moves that change something
    (fewer if a dead end comes first)."""
    game = new_game(WON)
    line = list(solve(game).line)
    played: list[Move | Stock] = [game.apply(action) for action in line[:k]]
    for move in game.legal_moves:
        trial = game.copy()
        trial.apply(move)
        lost = solve(trial, nodes=2_000).outcome is Outcome.UNWINNABLE
        if lost and not trial.is_dead_end():  # play goes on after it
            break
    else:
        raise AssertionError(f"no losing move after {k} moves of the line")
    losing = game.apply(move)
    assert isinstance(losing, Move)
    played.append(losing)
    played.extend(some_moves(game, 3))
    return played, losing


def some_moves(game: Game, n: int) -> list[Move | Stock]:
    """Up to ``n`` moves that change something, each the first legal one, played."""
    played: list[Move | Stock] = []
    for _ in range(n):
        move = next((m for m in game.legal_moves if game.changes_something(m)), None)
        if move is None:
            break
        played.append(game.apply(move))
    return played
