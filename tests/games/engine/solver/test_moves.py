"""The solvers' moves are the engine's moves (issue 16: each rule exists once).

For speed the solvers search a compact copy of the position (card numbers in ``bytes``)
and generate their moves on it, so their move generation is pinned here to the engine's
``Game.legal_moves`` on random positions of every variant: random deals after a random
number of random legal moves played by the engine, and positions along a winning line.

The solvers do not make every legal move: each prunes moves that never help, and the
pruning is stated once, on the engine's position, by ``searched(game, move)`` beside the
search (``games/engine/solver/seahaven.py`` and ``easy_harp.py``). The correspondence:

* **Seahaven**: the first steps of the search's children are exactly the engine's legal
  moves that ``searched`` keeps, in the solver's notation ``(card, count, target)``
  (:func:`seahaven_step`: the target is a card, or any free cell, any empty column, the
  foundation). The line checker ``_Replay.play`` accepts exactly the engine's legal moves
  (take-backs aside, which it never plays).
* **Easy Harp**: the children's first steps from a column, with no stock tap before them,
  are exactly the engine's legal moves from a column that ``searched`` keeps, in the
  solver's notation ``(taps, source, target, count)`` (:func:`easy_harp_step`). The
  search's moves from the stock and the waste are its own compounds ("tap until card X
  shows, then play it"), pinned by the inverse direction below.

And the inverse direction, for every child of both searches: its steps, turned into the
engine's actions, are all legal, and the engine's position after them is the child's.
"""

from __future__ import annotations

import functools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import ALL_VARIANTS, MAX_DEAL, Game, GameCode, Move, Stock, Suit, new_game
from games.engine.easy_harp import EasyHarp
from games.engine.seahaven import Seahaven
from games.engine.solver import easy_harp as eh
from games.engine.solver import seahaven as sh
from tests.support.search import find_win

SEAHAVEN = [v for v in ALL_VARIANTS if v.startswith("SH1-")]
EASY_HARP = [v for v in ALL_VARIANTS if v.startswith("EH1-")]

SETTINGS = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


WINNABLE = {"EH1-N": 24, "SH1-C4": 4, "SH1-C2": 12, "SH1-C1": 625}
"""A winnable deal per variant (as in ``test_won_games.py``): random play seldom empties a
column or builds a long run, a winning line does."""


@functools.cache
def winning_line(variant: str) -> tuple[GameCode, tuple[Move | Stock, ...]]:
    game_name, letter = variant.split("-")
    code = GameCode(game_name, letter, WINNABLE[variant])
    line = find_win(str(code))
    assert line is not None, code
    return code, tuple(line)


def played(variant: str, data: st.DataObject) -> Game:
    """A position of ``variant``: a random deal after a random number of random legal moves,
    or, half the time, a winnable deal after a random part of a winning line and a few
    random legal moves."""
    if data.draw(st.booleans(), label="along a win"):
        code, line = winning_line(variant)
        game = new_game(code)
        for action in line[: data.draw(st.integers(0, len(line)), label="line")]:
            game.apply(action)
        extra = data.draw(st.integers(0, 10), label="moves")
    else:
        game_name, letter = variant.split("-")
        game = new_game(GameCode(game_name, letter, data.draw(st.integers(1, MAX_DEAL))))
        extra = data.draw(st.integers(0, 150), label="moves")
    for _ in range(extra):
        moves = list(game.legal_moves)
        if not moves:
            break
        game.apply(data.draw(st.sampled_from(moves)))
    return game


def test_the_solvers_sizes_and_foundation_spots_are_the_engines():
    """Both solvers number a card ``suit * 13 + rank - 1`` and find its spot by its suit:
    Seahaven's spot ``s`` and Easy Harp's spots ``s`` and ``s + 4`` hold suit ``s`` (C7)."""
    assert Seahaven.foundation_suits == tuple(Suit)
    assert EasyHarp.foundation_suits == tuple(Suit) * 2
    assert Seahaven.n_cards == sh.N_CARDS
    assert EasyHarp.n_cards == eh.N_CARDS
    assert EasyHarp.n_columns == eh.N_COLUMNS


# --- Seahaven Towers -------------------------------------------------------------------


def seahaven_step(game: Game, move: Move) -> sh.Step:
    """``move`` in the Seahaven solver's notation."""
    card = game.piles[move.source][-move.count].id % sh.N_CARDS
    dst = move.target
    if dst[0] == "f":
        return card, move.count, sh.HOME
    if dst[0] == "c":
        return card, move.count, sh.CELL
    target = game.piles[dst]
    return card, move.count, target[-1].id % sh.N_CARDS if target else sh.EMPTY


def sorted_position(game: Game) -> sh.Position:
    """The engine's position as the search keeps it: columns and cells sorted."""
    cols, cells, found = sh.position_of(game)
    return tuple(sorted(cols)), bytes(sorted(cells)), tuple(found)


@SETTINGS
@given(variant=st.sampled_from(SEAHAVEN), data=st.data())
def test_seahaven_search_makes_the_engines_legal_moves_it_keeps(variant, data):
    game = played(variant, data)
    children = sh._Search(len(game.cells)).children(*sorted_position(game))
    kept = {seahaven_step(game, m) for m in game.legal_moves if sh.searched(game, m)}
    assert {steps[0] for *_, steps in children} == kept
    for _, _, position, steps in children:
        board = game.copy()
        for step in steps:
            board.apply(sh.engine_move(board, step))  # refuses (raises) an illegal step
        assert sorted_position(board) == position, steps


@SETTINGS
@given(variant=st.sampled_from(SEAHAVEN), data=st.data())
def test_seahaven_line_check_accepts_exactly_the_engines_legal_moves(variant, data):
    game = played(variant, data)
    cols, cells, found = sh.position_of(game)
    legal = {
        seahaven_step(game, m): m
        for m in game.legal_moves
        if isinstance(m, Move) and m.source[0] != "f"  # take-backs: never in a line
    }
    tops = [col[-1] for col in cols if col]
    targets = [sh.HOME, sh.CELL, sh.EMPTY, *tops]
    candidates = set(legal)
    candidates |= {(col[-n], n, t) for col in cols for n in range(1, len(col) + 1) for t in targets}
    candidates |= {(card, n, t) for card in cells for n in (1, 2) for t in targets}
    for step in sorted(candidates):
        replay = sh._Replay(cols, cells, found, len(game.cells))
        assert replay.play(step) is (step in legal), step
        if step in legal:
            board = game.copy()
            board.apply(legal[step])
            expected = sorted_position(board)
            got = (
                tuple(sorted(bytes(c) for c in replay.cols)),
                bytes(sorted(replay.cells)),
                tuple(replay.found),
            )
            assert got == expected, step


# --- Easy Harp -------------------------------------------------------------------------


def easy_harp_step(game: Game, move: Move) -> eh.Step:
    """``move`` (from a column) in the Easy Harp solver's notation, with no tap before it."""
    src = game.columns.index(move.source)
    dst = move.target
    target = eh.SPOT + game.foundations.index(dst) if dst[0] == "f" else game.columns.index(dst)
    return 0, src, target, move.count


def easy_harp_position(game: Game) -> tuple[object, ...]:
    """Columns, face-down counts, foundation heights, and the waste and the stock as card
    numbers: the waste bottom to top, the stock in the order it will be drawn."""
    seq, start = eh._start(game)
    waste = bytes(seq[q] for q in start.deck if q < start.ptr)
    stock = bytes(seq[q] for q in start.deck if q >= start.ptr)
    return start.cols, start.down, start.found, waste, stock


def child_position(seq: bytes, child: eh.State) -> tuple[object, ...]:
    waste = bytes(seq[q] for q in child.deck if q < child.ptr)
    stock = bytes(seq[q] for q in child.deck if q >= child.ptr)
    return child.cols, child.down, child.found, waste, stock


@SETTINGS
@given(variant=st.sampled_from(EASY_HARP), data=st.data())
def test_easy_harp_search_makes_the_engines_legal_moves_it_keeps(variant, data):
    game = played(variant, data)
    seq, start = eh._start(game)
    kept = {
        easy_harp_step(game, m)
        for m in game.legal_moves
        if isinstance(m, Move) and eh.searched(game, m)
    }
    # The portfolio's searches differ in how they lay stock cards, not in their direct moves.
    for params in {*eh.PORTFOLIO, eh.IMPROVE}:
        children = eh._Search(seq, params).children(start)
        direct = {
            steps[0] for steps, _, _ in children if steps[0][0] == 0 and steps[0][1] < eh.WASTE
        }
        assert direct == kept, params
        for steps, child, _ in children:
            board = game.copy()
            for action in eh._actions(game, steps):
                board.apply(action)  # refuses (raises) an illegal step
            assert easy_harp_position(board) == child_position(seq, child), steps
