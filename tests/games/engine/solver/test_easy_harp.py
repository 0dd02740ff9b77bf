"""The Easy Harp solver (``games/engine/solver/easy_harp.py``), without a database.

Every SOLVED line is played through the engine, action by action, and must win; it is
also replayed from its JSON form with :func:`games.engine.replay`, as the daily-deal job
stores it. Positions are real deals (``EH1-N-…``), real deals in progress, and hand-made
ones (``tests/support/positions.py``) that hold all 104 cards, so that they can be won,
with a known shortest line.
"""

from __future__ import annotations

from collections import Counter

import pytest

from games.engine import Game, GameCode, Move, Stock, new_game, replay, solve
from games.engine.solver import Budget, Outcome, Solution
from games.engine.solver.easy_harp import solve_easy_harp
from tests.support.positions import position
from tests.support.search import assert_wins

RANKS = "A23456789TJQK"
DEALS = [1, 2, 3, 4, 5, 24]
"""Random deal numbers (24 is the one the engine's own won-game test plays)."""
CODE = "EH1-N-AAAAAAB"
"""Hand-made positions borrow this deal's code; their piles are all given."""


def code(number: int) -> str:
    return str(GameCode("EH1", "N", number))


def up_to(suit: str, rank: str) -> str:
    """``up_to("S", "3")`` = "AS 2S 3S"; ``up_to("S", "")`` = "" (an empty spot)."""
    return " ".join(r + suit for r in RANKS[: RANKS.index(rank) + 1]) if rank else ""


def full_position(homes: str, down: dict[str, int] | None = None, **piles: str) -> Game:
    """A hand-made position holding every card twice: ``homes`` gives the top rank of
    f1–f8 (``"KKKKJKKQ"``, a space for an empty spot), ``piles`` the other cards."""
    spots = {
        f"f{i}": up_to(suit, rank.strip())
        for i, (suit, rank) in enumerate(zip("SHDCSHDC", homes, strict=True), start=1)
    }
    game = position(CODE, down=down, **spots, **piles)
    counts = Counter(c.id % 52 for pile in game.piles.values() for c in pile)
    assert all(counts[card] == 2 for card in range(52)), "the position must hold all 104 cards"
    return game


def waste_to_column(line: tuple[Move | Stock, ...]) -> int:
    return sum(1 for a in line if isinstance(a, Move) and a.source == "w" and a.target[0] == "t")


@pytest.fixture(scope="module", params=DEALS)
def solved(request: pytest.FixtureRequest) -> tuple[str, Solution]:
    deal = code(request.param)
    solution = solve_easy_harp(new_game(deal), Budget(seconds=20))
    assert solution.outcome is Outcome.SOLVED, f"{deal} not solved within the budget"
    return deal, solution


def test_a_line_from_the_deal_wins_through_the_engine(solved: tuple[str, Solution]) -> None:
    deal, solution = solved
    assert_wins(new_game(deal), solution)
    assert solution.nodes > 0 and solution.seconds > 0


def test_a_line_replays_from_json_to_a_win_with_the_full_score(
    solved: tuple[str, Solution],
) -> None:
    deal, solution = solved
    game = replay(deal, [action.to_json() for action in solution.line])
    assert game.won
    assert game.moves == len(solution.line)  # every action counts, stock taps too (C5)
    # 104 × 10 + 36 × 5, plus 5 per card from the waste to a column (C3): no take-backs.
    assert game.score == 1220 + 5 * waste_to_column(solution.line)


def test_a_line_is_far_shorter_than_drawing_every_card_every_time(
    solved: tuple[str, Solution],
) -> None:
    # The par: 104 cards home and 36 turned up need well over 100 actions; the search's raw
    # lines (a stock card fetched wherever it is) run to 400–500.
    _, solution = solved
    assert 104 < len(solution.line) < 450


def test_one_move_from_a_win() -> None:
    game = full_position("KKKKQKKK", t1="KS")
    solution = solve_easy_harp(game, Budget())
    assert solution.line == (Move("t1", "f5"),)
    assert_wins(game, solution)


def test_stock_taps_bring_up_the_cards_in_the_order_they_are_needed() -> None:
    # Drawn first: KH (it fits f6 at once), then KH (f2 still needs QH), then QH; the
    # second KH is then under QH on the waste and follows it home.
    game = full_position("KJKKKQKK", s="QH KH KH")
    solution = solve_easy_harp(game, Budget())
    assert solution.line == (
        Stock(),
        Move("w", "f6"),
        Stock(),
        Stock(),
        Move("w", "f2"),
        Move("w", "f2"),
    )
    assert_wins(game, solution)


def test_a_card_deep_in_the_waste_comes_back_with_a_new_pass() -> None:
    # The stock is empty: one tap turns the waste over, and "the first card drawn in the new
    # pass is the first card drawn in the previous one" (C15): QS, then KS.
    game = full_position("JKKKKKKK", w="QS KS")
    solution = solve_easy_harp(game, Budget())
    assert solution.line == (Stock(), Stock(), Move("w", "f1"), Stock(), Move("w", "f1"))
    assert_wins(game, solution)


def test_a_king_led_run_opens_a_buried_column() -> None:
    # QC must leave JC, and only a red king takes it: KH, which has to leave t1 first (with
    # QS, as a king-led run into the empty t2, or alone after QS goes home). Ten actions:
    # six cards home, two taps, KH and QC moved once more.
    game = full_position("KKKKJQKT", down={"t1": 2}, t1="JC QC KH QS", s="KC KS")
    solution = solve_easy_harp(game, Budget())
    assert_wins(game, solution)
    assert len(solution.line) == 10


def test_from_a_deal_in_progress() -> None:
    deal = code(DEALS[0])
    first = solve_easy_harp(new_game(deal), Budget(seconds=20))
    game = new_game(deal)
    for action in first.line[: len(first.line) // 2]:
        game.apply(action)
    solution = solve_easy_harp(game, Budget(seconds=20))
    assert_wins(game, solution)


def test_a_budget_that_runs_out_is_unknown() -> None:
    game = new_game(code(DEALS[1]))
    for budget in (Budget(nodes=1), Budget(seconds=0.0)):
        solution = solve_easy_harp(game, budget)
        assert solution.outcome is Outcome.UNKNOWN
        assert solution.line == ()
    assert solve(game, nodes=1).outcome is Outcome.UNKNOWN


def test_a_position_it_cannot_win_is_unknown_never_unwinnable() -> None:
    # The cards not named are absent, so no line wins; the search leaves out moves (take-backs
    # from a foundation, among others), so running out of positions proves nothing.
    game = position(CODE, t1="QH KS", t2="KD", s="JC 2D")
    solution = solve_easy_harp(game, Budget())
    assert solution.outcome is Outcome.UNKNOWN
    assert solution.line == ()


def test_the_game_given_is_never_changed() -> None:
    game = new_game(code(DEALS[2]))
    game.apply(Stock())
    game.apply(Stock())
    before = game.to_json()
    solution = solve(game, seconds=20)
    assert game.to_json() == before
    assert_wins(game, solution)


def test_solve_dispatches_easy_harp_codes() -> None:
    game = full_position("KKKKQKKK", t1="KS")
    assert solve(game).line == (Move("t1", "f5"),)
