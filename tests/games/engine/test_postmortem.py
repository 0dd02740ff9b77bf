"""Where a game went wrong (``games/engine/postmortem.py``), without a database.

The games are built so that the losing move is known: a deal the solver wins,
played along the solver's own line for a few moves, then a move after which the
solver proves the deal lost (found by trying every legal move), then a few
more moves (``tests/support/postmortem.py``). Every continuation found is played
through :meth:`Game.apply` and must win.
"""

from __future__ import annotations

import io
import json

import pytest

from games.engine import Game, Move, Stock, Undo, last_winnable, new_game, replay, solve
from games.engine.cli import main
from tests.support.postmortem import HARP, LOST, WON, losing_game, some_moves


def after(code: str, actions: list[Move | Stock]) -> Game:
    game = new_game(code)
    for action in actions:
        game.apply(action)
    return game


def assert_wins(game: Game, continuation: tuple[Move | Stock, ...]) -> None:
    board = game.copy()
    for action in continuation:
        assert not board.won
        assert board.apply(action) == action
    assert board.won


@pytest.mark.parametrize("k", [0, 5, 10, 17])
def test_names_the_move_that_lost_a_winnable_deal(k: int) -> None:
    played, losing = losing_game(k)
    found = last_winnable(new_game(WON), played, nodes=20_000, seconds=30)
    assert (found.index, found.settled, found.losing) == (k, True, losing)
    assert found.length == len(played) > k + 1
    assert 1 <= found.probes <= 4  # about log2 of the k + 5 positions, +1
    assert_wins(after(WON, played[:k]), found.continuation)


def test_a_dead_end_known_lost_is_not_probed() -> None:
    played, losing = losing_game(5)
    found = last_winnable(new_game(WON), played, nodes=20_000, seconds=30, end_lost=True)
    assert (found.index, found.settled, found.losing) == (5, True, losing)
    # The last position was not solved: a caller's word that it is lost is taken.
    tricked = last_winnable(new_game(WON), played[:5], nodes=20_000, seconds=30, end_lost=True)
    assert (tricked.index, tricked.settled, tricked.losing) == (4, True, played[4])


def test_undone_actions_are_not_on_the_line() -> None:
    played, losing = losing_game(5)
    line = list(solve(after(WON, played[:5])).line)
    actions = [*played[:5], losing, Undo(), *line[:6]]
    found = last_winnable(new_game(WON), actions, nodes=20_000, seconds=30)
    assert (found.index, found.settled, found.losing, found.length) == (11, True, None, 11)
    assert_wins(after(WON, [*played[:5], *line[:6]]), found.continuation)


def test_a_deal_lost_from_its_start_has_no_winnable_position() -> None:
    moves = some_moves(new_game(LOST), 3)
    assert moves
    found = last_winnable(new_game(LOST), moves, nodes=20_000, seconds=30)
    assert (found.index, found.settled, found.length) == (None, True, len(moves))
    assert (found.continuation, found.losing) == ((), None)


def test_a_budget_too_small_says_it_is_unsettled() -> None:
    played, _ = losing_game(5)
    tiny = last_winnable(new_game(WON), played, nodes=1, seconds=30)
    assert (tiny.index, tiny.settled, tiny.continuation, tiny.losing) == (None, False, (), None)
    assert tiny.probes >= 3
    none = last_winnable(new_game(WON), played, nodes=20_000, seconds=0)
    assert (none.index, none.settled, none.probes) == (None, False, 0)


def test_easy_harp_with_cards_face_down() -> None:
    """The solver sees the hidden cards; the whole line here stays winnable."""
    line = list(solve(new_game(HARP), nodes=20_000).line)
    start = after(HARP, line[:200])
    assert any(start.down.values())
    found = last_winnable(start, line[200:230], nodes=20_000, seconds=30)
    assert (found.index, found.settled, found.losing, found.length) == (30, True, None, 30)
    assert_wins(after(HARP, line[:230]), found.continuation)
    # A probe's budget too small for this deal: unsettled, and said so.
    tiny = last_winnable(start, line[200:230], nodes=1, seconds=30)
    assert (tiny.index, tiny.settled) == (None, False)


# --- the command line --------------------------------------------------------------


def postmortem(code: str, lines: list[dict[str, object]]) -> tuple[int, str]:
    stdin, stdout = io.StringIO("\n".join(json.dumps(line) for line in lines)), io.StringIO()
    status = main(["postmortem", code, "--nodes", "20000"], stdin=stdin, stdout=stdout)
    return status, stdout.getvalue()


def test_the_command_line_prints_the_post_mortem_as_json() -> None:
    played, losing = losing_game(5)
    lines = [action.to_json() for action in played]
    lines[6:6] = [{"type": "undo"}, lines[5]]  # undone, then played again
    status, out = postmortem(WON, lines)
    assert status == 0
    found = json.loads(out)
    assert {k: found[k] for k in ("index", "settled", "length", "losing")} == {
        "index": 5,
        "settled": True,
        "length": len(played),
        "losing": losing.to_json(),
    }
    assert replay(WON, [*lines[:5], *found["continuation"]]).won


def test_the_command_line_stops_at_a_refused_action(capsys: pytest.CaptureFixture[str]) -> None:
    first = new_game(WON).legal_moves
    lines = [next(iter(first)).to_json(), {"type": "move", "from": "t2", "to": "t3"}]
    assert Move("t2", "t3") not in first
    assert postmortem(WON, lines) == (1, "")
    assert capsys.readouterr().err.startswith("line 2: ")
