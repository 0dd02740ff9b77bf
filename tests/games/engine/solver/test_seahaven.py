"""The Seahaven Towers solver (``games/engine/solver/seahaven.py``), without a database.

Every SOLVED line is played through the engine, action by action, and must win;
UNWINNABLE claims are checked against an independent brute force that tries
every legal move the engine lists (group moves of every size, cell to cell,
take-backs from the foundations — from a complete one aside) on positions small
enough for it.
Positions are real deals (``SH1-C4-…``, ``-C2-``, ``-C1-``), hand-made ones
(``tests/support/positions.py``: piles not named are empty), and real deals in
progress.
"""

from __future__ import annotations

import time

import pytest

from games.engine import Game, GameCode, Move, new_game, solve
from games.engine.solver import Budget, Outcome, Solution
from games.engine.solver.seahaven import solve_seahaven
from tests.support.positions import position
from tests.support.search import assert_wins

RANKS = "A23456789TJQK"
FULL = {f"f{i}": " ".join(r + s for r in RANKS) for i, s in enumerate("SHDC", start=1)}
"""Every foundation complete: hand-made positions override the piles they use."""

WINNABLE = {
    "C4": [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
    "C2": [10, 12, 19, 27, 36, 45, 126],
    "C1": [140, 447, 552, 625, 654, 902],
}
"""Deal numbers proven winnable, per cell count (found by trying numbers: with 2 cells
about 1 deal in 7 is winnable, with 1 cell about 1 in 50)."""


def code(variant: str, number: int) -> str:
    return str(GameCode("SH1", variant, number))


def up(suit: str, low: int, high: int) -> str:
    """``up("S", 1, 3)`` = "AS 2S 3S"."""
    return " ".join(RANKS[r - 1] + suit for r in range(low, high + 1))


def run(game: Game, nodes: int = 200_000) -> Solution:
    return solve_seahaven(game, Budget(nodes=nodes))


def brute_force_wins(game: Game, limit: int = 5_000) -> bool:
    """Independent of the solver: depth-first over every move in ``game.legal_moves``,
    each position visited once (up to the order of columns and of cells). Take-backs
    from a complete foundation are left out, or the hand-made positions (three suits
    home) would not be small; those from the others are tried."""

    def key(g: Game) -> object:
        cols = sorted(tuple(c.id for c in g.piles[t]) for t in g.columns)
        cells = sorted(g.piles[c][0].id for c in g.cells if g.piles[c])
        return tuple(cols), tuple(cells), tuple(len(g.piles[f]) for f in g.foundations)

    seen = {key(game)}
    todo = [game]
    while todo:
        board = todo.pop()
        for move in list(board.legal_moves):
            if (
                isinstance(move, Move)
                and move.source[0] == "f"
                and len(board.piles[move.source]) == 13
            ):
                continue
            child = board.copy()
            child.apply(move)
            if child.won:
                return True
            k = key(child)
            if k not in seen:
                seen.add(k)
                todo.append(child)
        assert len(seen) <= limit, "position too large for the brute force"
    return False


# --- real deals ------------------------------------------------------------------


@pytest.mark.parametrize(
    "deal", [code(v, n) for v, numbers in WINNABLE.items() for n in numbers], ids=str
)
def test_solved_lines_replay_to_a_win_in_the_engine(deal: str) -> None:
    """4, 2 and 1 cells: SOLVED, and the line (resolved ``Move``s, foundation moves
    named ``fN``) wins when played through ``Game.apply``."""
    game = new_game(deal)
    solution = run(game)
    assert_wins(game, solution)
    assert solution.nodes >= 1 and solution.seconds >= 0
    moves = [a for a in solution.line if isinstance(a, Move)]
    assert len(moves) == len(solution.line)
    assert sum(1 for a in moves if a.target[0] == "f") == 52


@pytest.mark.parametrize("variant", ["C4", "C2", "C1"])
def test_every_deal_is_settled_within_the_default_budget(variant: str) -> None:
    """Forty deals per variant: each is SOLVED (and its line wins) or proven UNWINNABLE,
    none left UNKNOWN. Through the public ``solve``."""
    for number in range(1, 41):
        game = new_game(code(variant, number))
        solution = solve(game)
        assert solution.outcome is not Outcome.UNKNOWN, code(variant, number)
        if solution.outcome is Outcome.SOLVED:
            assert_wins(game, solution)
        else:
            assert solution.line == ()


def test_fewer_cells_never_win_more() -> None:
    """A line winning with 2 cells is legal with 4 (same shuffle, C1; cells only add
    room): every deal winnable with 2 cells is found winnable with 4."""
    for number in range(1, 61):
        if run(new_game(code("C2", number))).outcome is Outcome.SOLVED:
            assert run(new_game(code("C4", number))).outcome is Outcome.SOLVED, number


def test_solver_is_deterministic() -> None:
    """The daily-deal job may run twice: the same position and node budget give the
    same line (the par)."""
    deal = code("C4", 3)
    assert run(new_game(deal)).line == run(new_game(deal)).line


# --- hand-made positions ----------------------------------------------------------


@pytest.mark.parametrize("pile", ["t5", "c1"])
def test_one_move_from_a_win(pile: str) -> None:
    """Everything home but the K♠, on a column or in a cell: the line is that one
    foundation move, named by its spot (C7: f1 is spades)."""
    game = position("SH1-C4-AAAAAAB", **{**FULL, "f1": up("S", 1, 12), pile: "KS"})
    solution = run(game)
    assert solution.line == (Move(pile, "f1"),)
    assert_wins(game, solution)


# Spades 4-K and hearts 2-K in play, every column in use; found by a seeded random
# search over such positions, winnable with two cells and not with one (the brute
# force agrees). With one cell, held by 6♥ (7♥ is at the bottom of t3), the hearts
# wait on 3♥ under 9♥, which waits on 10♥ under J♥, which waits on Q♥ under 5♥,
# which can only go onto 6♥ in the cell; the spades wait on 5♠ under 6♠, whose 7♠
# is buried too. A second cell breaks the cycle.
ONE_CELL_SHORT = {
    **FULL,
    "f1": up("S", 1, 3),
    "f2": "AH",
    "c1": "6H",
    "t1": "QH 5H",
    "t2": "7S TH JH",
    "t3": "7H 3H 9H",
    "t4": "9S",
    "t5": "4S 4H",
    "t6": "JS",
    "t7": "2H 8H TS KH",
    "t8": "5S 6S",
    "t9": "KS",
    "t10": "QS 8S",
}


def test_one_cell_short_unwinnable_with_one_cell() -> None:
    game = position("SH1-C1-AAAAAAB", **ONE_CELL_SHORT)
    solution = run(game)
    assert solution.outcome is Outcome.UNWINNABLE
    assert solution.line == ()
    assert not brute_force_wins(game)


def test_one_cell_short_winnable_with_two_cells() -> None:
    game = position("SH1-C2-AAAAAAB", **ONE_CELL_SHORT)
    solution = run(game)
    assert_wins(game, solution)
    # Both cells hold a card at some point: the line names the leftmost free cell, so
    # c2 is used only while c1 is full (else the line would win with one cell).
    assert any(isinstance(a, Move) and a.target == "c2" for a in solution.line)


def test_cell_card_goes_back_onto_its_successor() -> None:
    """A card in a cell whose successor is on top of a column goes onto it (the search
    does it at once, and the line names it): 6♥ leaves the only cell for 7♥, then the
    run 7♥-6♥ goes onto 8♥ and the hearts go home."""
    game = position(
        "SH1-C1-AAAAAAB",
        **{**FULL, "f2": up("H", 1, 4), "c1": "6H", "t1": "5H 7H", "t2": "KH QH JH TH 9H 8H"},
    )
    solution = run(game)
    assert_wins(game, solution)
    assert solution.line[0] == Move("c1", "t1")
    assert brute_force_wins(game)


def test_no_legal_move_at_all_is_unwinnable_at_once() -> None:
    """A deal with no legal move from the start (the engine's dead end, C10)."""
    game = new_game("SH1-C2-AAAAAAB")
    assert game.is_dead_end()
    solution = run(game)
    assert solution.outcome is Outcome.UNWINNABLE
    assert solution.nodes <= 1


# --- games in progress -------------------------------------------------------------


@pytest.mark.parametrize("move", [Move("t8", "c3"), Move("t7", "c4"), Move("t6", "c3")])
def test_one_bad_move_makes_a_winnable_deal_lost(move: Move) -> None:
    """SH1-C4 deal 1 is winnable, but no longer after any of these moves into a cell:
    the proof that "this position can no longer be won", checked by brute force."""
    game = new_game(code("C4", 1))
    assert run(game).outcome is Outcome.SOLVED
    game.apply(move)
    assert run(game).outcome is Outcome.UNWINNABLE
    assert not brute_force_wins(game)


@pytest.mark.parametrize("deal", [code("C4", 2), code("C2", 12), code("C1", 625)])
def test_solves_from_the_middle_of_a_game(deal: str) -> None:
    """Half-way through a winning line (cards home, cells in use), the search starts
    from the current position and its line wins from there."""
    game = new_game(deal)
    first = run(game)
    for action in first.line[: len(first.line) // 2]:
        game.apply(action)
    assert any(game.piles[f] for f in game.foundations)
    solution = run(game)
    assert_wins(game, solution)
    assert len(solution.line) <= len(first.line)


# --- budget ------------------------------------------------------------------------


def test_node_budget_runs_out_as_unknown() -> None:
    game = new_game(code("C4", 176))  # thousands of positions before the win
    solution = solve_seahaven(game, Budget(nodes=1))
    assert solution.outcome is Outcome.UNKNOWN
    assert solution.line == () and solution.nodes <= 1
    assert run(game).outcome is Outcome.SOLVED


def test_time_budget_runs_out_as_unknown() -> None:
    game = new_game(code("C4", 176))
    solution = solve_seahaven(game, Budget(seconds=0.0, started=time.perf_counter() - 1))
    assert solution.outcome is Outcome.UNKNOWN
    assert solution.line == ()


# --- UNWINNABLE against the brute force --------------------------------------------

SMALL_LOST = {"C1": list(range(1, 41)), "C2": [1, 2, 4, 6, 7, 8, 9, 11, 13, 14, 16, 20]}
"""Deals whose whole reachable space is small enough for the engine-driven brute force."""


@pytest.mark.parametrize("variant", SMALL_LOST)
def test_unwinnable_claims_agree_with_brute_force(variant: str) -> None:
    for number in SMALL_LOST[variant]:
        game = new_game(code(variant, number))
        assert run(game).outcome is Outcome.UNWINNABLE, number
        assert not brute_force_wins(game), number
