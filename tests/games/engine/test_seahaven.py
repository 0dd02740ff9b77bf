"""Seahaven Towers rules (RULES.md Part B, decisions of Part C, PRODUCT.md Contracts).

One test (or one small parametrized group) per rule; each name and docstring cites
the rule it pins. Positions are built by hand with ``positions.position`` (piles
not named are empty, cards not named are absent); real deals come from
``new_game``.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from games.engine import CARDS, DoubleTap, Game, GameCode, Move, Stock, Tap, Undo, new_game
from games.engine.errors import IllegalActionError, MalformedError
from games.engine.shuffle import shuffled_ids
from tests.support.positions import position, texts

C4 = "SH1-C4-AAAAAAB"
C2 = "SH1-C2-AAAAAAB"
C1 = "SH1-C1-AAAAAAB"
DEAL = "AAAAAJ2"
RANKS = "A23456789TJQK"
COLUMNS = [f"t{i}" for i in range(1, 11)]


def up(suit: str, low: int = 1, high: int = 13) -> str:
    """Cards of ``suit`` from rank ``low`` up to ``high``: ``up("S", 1, 3)`` = "AS 2S 3S"."""
    return " ".join(RANKS[r - 1] + suit for r in range(low, high + 1))


def down_run(suit: str, high: int, low: int) -> str:
    """Cards of ``suit`` from rank ``high`` down to ``low``: ``down_run("H", 12, 10)``
    = "QH JH TH"."""
    return " ".join(RANKS[r - 1] + suit for r in range(high, low - 1, -1))


def refuse(game: Game, action: Any, code: str, error: type = IllegalActionError) -> Any:
    """Apply ``action``, expect the refusal ``code``, and check nothing changed."""
    before = game.to_json()
    with pytest.raises(error) as info:
        if isinstance(action, dict):
            game.apply_json(action)
        else:
            game.apply(action)
    assert info.value.code == code
    assert isinstance(info.value.message, str) and info.value.message.strip()
    assert game.to_json() == before
    return info.value


# A position where nothing at all can move: all four cells full, ten one-card
# columns, no ace, no king, and no two cards of one suit in consecutive ranks.
DEAD = {
    "t1": "2S",
    "t2": "4S",
    "t3": "6S",
    "t4": "8S",
    "t5": "TS",
    "t6": "QS",
    "t7": "2H",
    "t8": "4H",
    "t9": "6H",
    "t10": "8H",
    "c1": "2C",
    "c2": "4C",
    "c3": "6C",
    "c4": "8C",
}


def dead(code: str = C4, **changes: str) -> Game:
    return position(code, **{**DEAD, **changes})


# --- the deal (B "Setup", "Number of cells"; C1, C21) ------------------------------


@pytest.mark.parametrize("variant, n_cells", [("C4", 4), ("C2", 2), ("C1", 1)])
def test_b_deal_lists_exactly_the_piles_of_c21(variant: str, n_cells: int) -> None:
    """C21: the view lists t1-t10, c1..cN (N = the variant's cells), f1-f4, nothing else;
    ``down`` lists exactly the columns, all 0 (B: every card is dealt face up)."""
    game = new_game(f"SH1-{variant}-{DEAL}")
    cells = [f"c{i}" for i in range(1, n_cells + 1)]
    expected = [*COLUMNS, *cells, "f1", "f2", "f3", "f4"]
    for view in (game.view(), game.view(full=True)):
        assert sorted(view["piles"]) == sorted(expected)
        assert view["down"] == dict.fromkeys(COLUMNS, 0)
        assert view["score"] == 0 and view["moves"] == 0 and view["won"] is False
        assert view["code"] == f"SH1-{variant}-{DEAL}"
    # face up: the player's view hides nothing
    assert game.view()["piles"] == game.view(full=True)["piles"]


@pytest.mark.parametrize("variant", ["C4", "C2"])
def test_b_deal_ten_columns_of_five_and_leftovers_in_c1_c2(variant: str) -> None:
    """B Setup: 5 cards in each of 10 columns, the last 2 cards in the first two cells;
    C4 leaves c3, c4 empty, C2 has both cells full; foundations empty; 52 distinct cards."""
    game = new_game(f"SH1-{variant}-{DEAL}")
    piles = game.view()["piles"]
    assert [len(piles[t]) for t in COLUMNS] == [5] * 10
    assert len(piles["c1"]) == 1 and len(piles["c2"]) == 1
    if variant == "C4":
        assert piles["c3"] == [] and piles["c4"] == []
    assert all(piles[f] == [] for f in ("f1", "f2", "f3", "f4"))
    every = [c for p in piles.values() for c in p]
    assert len(every) == 52 and len(set(every)) == 52


def test_b_deal_one_cell_puts_second_leftover_on_t2() -> None:
    """B Number of cells: with 1 cell the second leftover card goes onto column 2,
    which then holds 6 cards; c1 holds the first leftover."""
    game = new_game(f"SH1-C1-{DEAL}")
    piles = game.view()["piles"]
    assert [len(piles[t]) for t in COLUMNS] == [5, 6, 5, 5, 5, 5, 5, 5, 5, 5]
    assert len(piles["c1"]) == 1
    assert "c2" not in piles


def test_b_deal_variants_share_the_shuffle_of_the_deal_number() -> None:
    """Engine decision (shuffle.py): SH1-C4/C2/C1 of one deal number shuffle the same
    cards; only where the 52nd card lands differs (c2, or on top of t2 with one cell)."""
    c4 = new_game(f"SH1-C4-{DEAL}").view()["piles"]
    c2 = new_game(f"SH1-C2-{DEAL}").view()["piles"]
    c1 = new_game(f"SH1-C1-{DEAL}").view()["piles"]
    for t in COLUMNS:
        assert c2[t] == c4[t]
    assert c2["c1"] == c4["c1"] and c2["c2"] == c4["c2"]
    for t in COLUMNS:
        assert c1[t] == (c4[t] + c4["c2"] if t == "t2" else c4[t])
    assert c1["c1"] == c4["c1"]
    # a different deal number is a different deal
    other = new_game("SH1-C4-AAAAAJ3").view()["piles"]
    assert [other[t] for t in COLUMNS] != [c4[t] for t in COLUMNS]


@pytest.mark.parametrize("variant", ["C4", "C2", "C1"])
def test_b_deal_order_is_column_by_column_as_documented(variant: str) -> None:
    """seahaven.py / C1: the shuffled cards are dealt five to t1, then five to t2 …
    (the fifth is the top), the 51st into c1, the 52nd into c2 (or onto t2 with 1 cell)."""
    code = GameCode.parse(f"SH1-{variant}-{DEAL}")
    order = [CARDS[i].text for i in shuffled_ids(code, 52)]
    game = new_game(code)
    for i, t in enumerate(COLUMNS):
        dealt = order[5 * i : 5 * i + 5]
        if variant == "C1" and t == "t2":
            dealt = [*dealt, order[51]]
        assert texts(game, t) == dealt
    assert texts(game, "c1") == [order[50]]
    if variant != "C1":
        assert texts(game, "c2") == [order[51]]


def test_b_deal_real_game_first_move_into_a_cell() -> None:
    """B Into a cell, on a real deal: the top card of t1 goes into empty c3 (one move)."""
    game = new_game(f"SH1-C4-{DEAL}")
    top = texts(game, "t1")[-1]
    assert game.apply(Move("t1", "c3")) == Move("t1", "c3")
    assert texts(game, "c3") == [top] and len(game.piles["t1"]) == 4
    assert game.view()["moves"] == 1 and game.view()["dead_end"] is False


# --- onto a column (B "Allowed moves") ---------------------------------------------


def test_b_seven_of_hearts_onto_eight_of_hearts() -> None:
    """B Onto a column: same suit, exactly one rank lower: 7H goes onto 8H."""
    game = position(C4, t1="2C 7H", t2="8H")
    assert game.apply(Move("t1", "t2")) == Move("t1", "t2")
    assert texts(game, "t2") == ["8H", "7H"] and texts(game, "t1") == ["2C"]


@pytest.mark.parametrize("top", ["8D", "8S", "8C", "9H", "6H"])
def test_b_seven_of_hearts_only_onto_eight_of_hearts(top: str) -> None:
    """B: "The 7H goes only onto the 8H, never onto the 8D nor a black 8" (nor a 9H, nor
    a lower card): refused with ``wrong_build``."""
    game = position(C4, t1="7H", t2=top)
    refuse(game, Move("t1", "t2"), "wrong_build")


def test_b_cell_card_onto_column_same_suit_one_lower() -> None:
    """B: a card in a cell moves too: 7H from c1 onto 8H; onto 8D refused."""
    game = position(C4, c1="7H", t1="8D", t2="8H")
    refuse(game, Move("c1", "t1"), "wrong_build")
    game.apply(Move("c1", "t2"))
    assert texts(game, "t2") == ["8H", "7H"] and game.piles["c1"] == []


# --- into a cell ---------------------------------------------------------------------


@pytest.mark.parametrize("card", ["KS", "AH", "7D", "QC"])
def test_b_any_card_into_an_empty_cell(card: str) -> None:
    """B Into a cell: any card, if the cell is empty."""
    game = position(C4, t1=f"2S {card}")
    game.apply(Move("t1", "c4"))
    assert texts(game, "c4") == [card]


def test_b_occupied_cell_refused() -> None:
    """B: a cell holds one card: a move into an occupied cell is ``cell_occupied``."""
    game = position(C4, t1="7H", c1="2C")
    refuse(game, Move("t1", "c1"), "cell_occupied")
    game2 = position(C4, c2="7H", c1="2C")
    refuse(game2, Move("c2", "c1"), "cell_occupied")


def test_b_group_cannot_go_into_a_cell() -> None:
    """B: a cell holds one card: a group of two into an empty cell is ``cell_one_card``."""
    game = position(C4, t1="9C 8C")
    refuse(game, Move("t1", "c1", 2), "cell_one_card")


def test_b_cell_to_cell_is_a_legal_explicit_move() -> None:
    """B/C10: moving a card from one cell to another is legal when asked explicitly."""
    game = position(C4, c1="5D")
    assert Move("c1", "c3") in game.legal_moves
    game.apply(Move("c1", "c3"))
    assert game.piles["c1"] == [] and texts(game, "c3") == ["5D"]
    assert game.moves == 1


# --- foundations (B, C7, C16) ------------------------------------------------------


@pytest.mark.parametrize("spot, ace", [("f1", "AS"), ("f2", "AH"), ("f3", "AD"), ("f4", "AC")])
def test_c7_foundation_spots_are_spades_hearts_diamonds_clubs(spot: str, ace: str) -> None:
    """C7: f1-f4 are S H D C: each ace goes onto its own spot; the other spots refuse it
    with ``foundation_suit``."""
    game = position(C4, t1=ace)
    for other in ("f1", "f2", "f3", "f4"):
        if other != spot:
            refuse(game, Move("t1", other), "foundation_suit")
    game.apply(Move("t1", spot))
    assert texts(game, spot) == [ace]


def test_b_foundation_ace_first_then_one_rank_at_a_time() -> None:
    """B Onto a foundation: the ace first, then 2, 3 … one rank at a time, same suit;
    anything else is ``foundation_order``."""
    game = position(C4, t1="2S", t2="3S", c1="AS")
    refuse(game, Move("t1", "f1"), "foundation_order")  # 2 before the ace
    game.apply(Move("c1", "f1"))
    refuse(game, Move("t2", "f1"), "foundation_order")  # 3 before the 2
    game.apply(Move("t1", "f1"))
    game.apply(Move("t2", "f1"))
    assert texts(game, "f1") == ["AS", "2S", "3S"]


def test_b_foundation_takes_one_card_at_a_time() -> None:
    """B: onto a foundation "one card at a time": a group is refused (spot or ``f``)."""
    game = position(C4, t1="3S 2S", f1="AS")
    refuse(game, Move("t1", "f1", 2), "foundation_one_card")
    refuse(game, Move("t1", "f", 2), "foundation_one_card")
    assert game.targets("t1", 2) == []


@pytest.mark.parametrize(
    "card, spot, f_piles",
    [
        ("AD", "f3", {}),
        ("5C", "f4", {"f4": "AC 2C 3C 4C"}),
        ("2H", "f2", {"f2": "AH", "f1": "AS"}),
    ],
)
def test_c7_drop_on_f_picks_the_spot_and_names_it(
    card: str, spot: str, f_piles: dict[str, str]
) -> None:
    """PRODUCT Contracts / C7: ``f`` as destination picks the spot that accepts the card;
    the returned (recorded) action names the concrete spot."""
    game = position(C4, c2=card, **f_piles)
    resolved = game.apply(Move("c2", "f"))
    assert resolved == Move("c2", spot)
    assert texts(game, spot)[-1] == card
    assert game.history[-1].action == Move("c2", spot)
    assert game.to_json()["history"][-1]["action"] == {
        "type": "move",
        "from": "c2",
        "to": spot,
        "count": 1,
    }


def test_c7_drop_on_f_refused_when_no_foundation_accepts() -> None:
    """C7: a drop on ``f`` that no spot accepts is refused (``no_foundation``)."""
    game = position(C4, t1="3D", f3="AD")
    refuse(game, Move("t1", "f"), "no_foundation")


# --- empty column: kings only (B) ----------------------------------------------------


def test_b_empty_column_accepts_a_king_alone() -> None:
    """B Empty column: kings only — a king from a column or from a cell is accepted."""
    game = position(C4, t1="3D KS", c1="KH")
    game.apply(Move("t1", "t5"))
    game.apply(Move("c1", "t6"))
    assert texts(game, "t5") == ["KS"] and texts(game, "t6") == ["KH"]


def test_b_empty_column_accepts_a_king_with_its_same_suit_run() -> None:
    """B: an emptied column accepts a king "followed by its same-suit run" (KS QS JS)."""
    game = position(C4, t1="3D KS QS JS")
    game.apply(Move("t1", "t5", 3))
    assert texts(game, "t5") == ["KS", "QS", "JS"] and texts(game, "t1") == ["3D"]


@pytest.mark.parametrize("source, card", [("t1", "QS"), ("c1", "QH"), ("c1", "AS"), ("t1", "2D")])
def test_b_empty_column_refuses_any_other_card_even_from_a_cell(source: str, card: str) -> None:
    """B: "No other card may be placed there, not even for a moment": ``kings_only``,
    from a column or from a cell."""
    game = position(C4, **{source: card})
    refuse(game, Move(source, "t7"), "kings_only")


def test_b_empty_column_refuses_a_run_not_headed_by_a_king() -> None:
    """B: a same-suit run headed by a queen cannot go into an empty column: ``kings_only``."""
    game = position(C4, t1="3D QS JS TS")
    refuse(game, Move("t1", "t5", 3), "kings_only")


# --- group moves (B "Group moves", C17) ----------------------------------------------


def test_b_same_suit_run_moves_at_once() -> None:
    """B Group moves: a run (same suit, consecutive, e.g. 9 8 7 of clubs) moves at once,
    counting as one move."""
    game = position(C4, t1="2H 9C 8C 7C", t2="TC")
    assert Move("t1", "t2", 3) in game.legal_moves
    game.apply(Move("t1", "t2", 3))
    assert texts(game, "t2") == ["TC", "9C", "8C", "7C"] and texts(game, "t1") == ["2H"]
    assert game.moves == 1


@pytest.mark.parametrize("stack", ["9C 8H 7C", "9C 7C 6C", "8C 9C 7C", "9C 8D 7C"])
def test_b_group_that_is_not_a_run_refused(stack: str) -> None:
    """B: only a run already built (same suit, consecutive ranks) moves as a group:
    otherwise ``not_a_run``."""
    game = position(C4, t1=stack, t2="TC")
    refuse(game, Move("t1", "t2", 3), "not_a_run")


def test_b_group_head_must_build_on_the_target() -> None:
    """B: a run lands only where its head may go: 8C 7C onto TC is ``wrong_build``."""
    game = position(C4, t1="8C 7C", t2="TC")
    refuse(game, Move("t1", "t2", 2), "wrong_build")


FILL_COLUMNS = ["2D", "4D", "6D", "8D", "TD", "QD", "TC", "QC"]
FILL_CELLS = ["2C", "4C", "6C", "8C"]


def capacity_position(free: int, empty: int, run: str, target: str = "KH") -> Game:
    """C4: t1 = 2S + ``run``, t2 = ``target``, ``empty`` empty columns at the right end,
    ``4 - free`` full cells; the other columns hold one non-interacting card each."""
    piles: dict[str, str] = {"t1": f"2S {run}", "t2": target}
    others = COLUMNS[2 : 10 - empty]
    for t, card in zip(others, FILL_COLUMNS, strict=False):
        piles[t] = card
    for i in range(4 - free):
        piles[f"c{i + 1}"] = FILL_CELLS[i]
    game = position(C4, **piles)
    assert sum(1 for t in COLUMNS if not game.piles[t]) == empty
    assert sum(1 for c in game.cells if not game.piles[c]) == free
    return game


@pytest.mark.parametrize(
    "free, empty",
    [(0, 0), (1, 0), (2, 0), (3, 0), (4, 0), (0, 1), (1, 1), (2, 1), (3, 1), (4, 1), (0, 2),
     (1, 2), (0, 3)],
)  # fmt: skip
def test_b_group_capacity_formula(free: int, empty: int) -> None:
    """B: a group holds at most (free cells + 1) × 2^(empty columns) cards (onto a
    non-empty column): that many are accepted, one more is ``group_too_large`` and the
    message states the capacity."""
    capacity = (free + 1) * 2**empty
    fits = capacity_position(free, empty, down_run("H", 12, 13 - capacity))
    assert fits.targets("t1", capacity) == ["t2"]
    fits.apply(Move("t1", "t2", capacity))
    assert len(fits.piles["t2"]) == capacity + 1
    over = capacity_position(free, empty, down_run("H", 12, 12 - capacity))
    error = refuse(over, Move("t1", "t2", capacity + 1), "group_too_large")
    assert re.search(rf"\b{capacity}\b", error.message)


def test_b_seed_example_run_of_eight_onto_a_column() -> None:
    """B example: 1 free cell and 2 empty columns: a run of 8 may be lifted onto a
    non-empty column; 9 is ``group_too_large`` and the message says 8."""
    game = capacity_position(1, 2, down_run("H", 12, 5))
    game.apply(Move("t1", "t2", 8))
    assert texts(game, "t2") == ["KH", *down_run("H", 12, 5).split()]
    over = capacity_position(1, 2, down_run("H", 12, 4))
    error = refuse(over, Move("t1", "t2", 9), "group_too_large")
    assert re.search(r"\b8\b", error.message)


def test_b_seed_example_king_led_run_into_empty_column_at_most_four() -> None:
    """B example: with 1 free cell and 2 empty columns a king-led run goes into one of
    the empty columns only with at most 4 cards (the destination is not counted); 5 is
    ``group_too_large`` and the message says 4."""
    game = capacity_position(1, 2, down_run("S", 13, 10), target="KD")
    assert game.targets("t1", 4) == ["t9", "t10"]
    game.apply(Move("t1", "t9", 4))
    assert texts(game, "t9") == ["KS", "QS", "JS", "TS"]
    over = capacity_position(1, 2, down_run("S", 13, 9), target="KD")
    assert over.targets("t1", 5) == []
    error = refuse(over, Move("t1", "t10", 5), "group_too_large")
    assert re.search(r"\b4\b", error.message)


def test_c17_source_column_never_counts_as_empty() -> None:
    """C17: the group size is computed before the move; the source column does not
    count as empty even when the group is the whole column. 1 free cell, no empty
    column: capacity 2, so a whole-column run of 3 is refused (4 if t1 counted)."""
    piles = {
        "t1": "QH JH TH",
        "t2": "KH",
        **dict(zip(COLUMNS[2:], FILL_COLUMNS, strict=True)),
        "c1": "2C",
        "c2": "4C",
        "c3": "6C",
    }
    game = position(C4, **piles)
    error = refuse(game, Move("t1", "t2", 3), "group_too_large")
    assert re.search(r"\b2\b", error.message)
    two = position(C4, **{**piles, "t1": "QH JH"})
    two.apply(Move("t1", "t2", 2))
    assert texts(two, "t2") == ["KH", "QH", "JH"] and two.piles["t1"] == []


def test_b_removed_cells_do_not_count_in_group_size() -> None:
    """B Number of cells: removed cells vanish and do not count. The same columns with
    c1, c2 full: C4 (2 free cells) lifts 3; C2 (0 free) lifts 1; C1 (c1 empty) lifts 2."""
    fill = dict(zip(COLUMNS[2:], FILL_COLUMNS, strict=True))

    def build(code: str, n: int, **cells: str) -> Game:
        return position(code, t1="2S " + down_run("H", 12, 13 - n), t2="KH", **fill, **cells)

    four = build(C4, 3, c1="2C", c2="4C")
    four.apply(Move("t1", "t2", 3))
    assert len(four.piles["t2"]) == 4
    two = build(C2, 2, c1="2C", c2="4C")
    refuse(two, Move("t1", "t2", 2), "group_too_large")
    assert two.targets("t1", 2) == []
    one = build(C1, 3)
    refuse(one, Move("t1", "t2", 3), "group_too_large")
    one_two = build(C1, 2)
    one_two.apply(Move("t1", "t2", 2))
    assert texts(one_two, "t2") == ["KH", "QH", "JH"]


# --- take-back from a foundation (B, C4, C16) ---------------------------------------


def test_b_take_back_onto_a_column_that_accepts_it_costs_ten() -> None:
    """B Taking back: the top foundation card goes onto a column that accepts it;
    C4: −10 points."""
    game = position(C4, t1="5S", t2="4S", t3="3S", f1="AS 2S")
    game.apply(Tap("t3"))
    game.apply(Tap("t2"))
    assert game.score == 20
    game.apply(Move("f1", "t1"))
    assert texts(game, "t1") == ["5S", "4S"] and texts(game, "f1") == ["AS", "2S", "3S"]
    assert game.score == 10 and game.moves == 3


def test_b_take_back_into_an_empty_cell() -> None:
    """B Taking back: the top foundation card may go into an empty cell (−10, C4);
    an occupied cell is ``cell_occupied``; a column that does not accept it is
    ``wrong_build``."""
    game = position(C4, t1="3S", t2="9D", c1="KC", f1="AS 2S")
    game.apply(Tap("t1"))
    refuse(game, Move("f1", "c1"), "cell_occupied")
    refuse(game, Move("f1", "t2"), "wrong_build")
    refuse(game, Move("f1", "t5"), "kings_only")
    game.apply(Move("f1", "c2"))
    assert texts(game, "c2") == ["3S"] and texts(game, "f1") == ["AS", "2S"]
    assert game.score == 0


@pytest.mark.parametrize("target", ["f2", "f3", "f4", "f"])
def test_c16_foundation_to_foundation_refused(target: str) -> None:
    """C16: foundations are not a source for foundations: a move from a spot to another
    spot or to ``f`` is refused (``foundation_to_foundation``)."""
    game = position(C4, f1="AS", f2="AH")
    refuse(game, Move("f1", target), "foundation_to_foundation")


def test_b_take_back_only_one_card() -> None:
    """B: only the top card of a foundation is taken back, one at a time:
    ``take_back_one_card``."""
    game = position(C4, t1="4S", f1="AS 2S 3S")
    refuse(game, Move("f1", "t1", 2), "take_back_one_card")
    refuse(game, Move("f1", "c1", 2), "take_back_one_card")
    assert game.targets("f1", 2) == []


# --- scoring (C4) --------------------------------------------------------------------


def test_c4_plus_ten_per_foundation_card_and_won_game_scores_520() -> None:
    """C4: +10 when a card goes onto a foundation; a won game scores 520 (52 taps)."""
    game = position(
        C4,
        t1=down_run("S", 13, 1),
        t2=down_run("H", 13, 1),
        t3=down_run("D", 13, 1),
        t4=down_run("C", 13, 1),
    )
    for i, t in enumerate(["t1", "t2", "t3", "t4"] * 13):
        assert not game.won
        game.apply(Tap(t))
        assert game.score == 10 * (i + 1)
    assert game.won is True and game.score == 520 and game.moves == 52
    assert [texts(game, f) for f in ("f1", "f2", "f3", "f4")] == [
        up("S").split(),
        up("H").split(),
        up("D").split(),
        up("C").split(),
    ]


def test_c4_undo_removes_exactly_what_the_action_earned_and_score_clamps_at_zero() -> None:
    """C4: −10 per take-back, clamped at 0; undo removes exactly what the undone action
    earned or cost (a clamped take-back cost 0, so its undo gives nothing back)."""
    game = position(C4, t1="3S", f1="AS 2S")
    game.apply(Tap("t1"))
    assert game.score == 10
    game.apply(Move("f1", "c1"))  # take back 3S: 10 → 0
    assert game.score == 0
    game.apply(Move("f1", "c2"))  # take back 2S: clamped, stays 0
    assert game.score == 0
    game.apply(Undo())
    assert game.score == 0 and texts(game, "f1") == ["AS", "2S"]
    game.apply(Undo())
    assert game.score == 10 and texts(game, "f1") == ["AS", "2S", "3S"]
    game.apply(Undo())
    assert game.score == 0 and texts(game, "t1") == ["3S"]
    assert game.moves == 3


def test_c4_moves_off_the_foundation_area_score_nothing() -> None:
    """C4: only foundation moves score: column, cell and group moves are worth 0."""
    game = position(C4, t1="2H 9C 8C", t2="TC", t3="5D", c1="KH")
    game.apply(Move("t1", "t2", 2))
    game.apply(Move("t3", "c2"))
    game.apply(Move("c1", "t3"))
    assert game.score == 0 and game.moves == 3


# --- move counter (C5), undo (C6, C18) -----------------------------------------------


def test_c5_move_counter_counts_accepted_actions_only() -> None:
    """C5: every accepted action adds 1 (a group move and a tap too); undo adds and
    removes nothing; refused actions count for nothing."""
    game = position(C4, t1="2H 9C 8C", t2="TC", t3="AS", t4="7D")
    game.apply(Move("t1", "t2", 2))
    game.apply(Tap("t3"))
    game.apply(DoubleTap("t4"))
    assert game.moves == 3
    with pytest.raises(IllegalActionError):
        game.apply(Move("t1", "t2"))
    assert game.moves == 3
    game.apply(Undo())
    game.apply(Undo())
    assert game.moves == 3 and game.view()["moves"] == 3


def test_c6_undo_restores_the_position_exactly_on_a_real_deal() -> None:
    """C6: undo reverses the last accepted action exactly (piles, score, down, won);
    undoing every move brings back the deal. Random legal moves on a real deal."""
    game = new_game(f"SH1-C4-{DEAL}")
    rng = random.Random(7)
    seen = []
    for _ in range(40):
        view = game.view(full=True)
        seen.append({k: view[k] for k in ("piles", "down", "score", "won", "dead_end")})
        moves = list(game.legal_moves)
        if not moves:
            break
        game.apply(rng.choice(moves))
    played = game.moves
    for expected in reversed(seen[:played]):
        game.apply(Undo())
        view = game.view(full=True)
        assert {k: view[k] for k in expected} == expected
    assert game.moves == played
    assert game.view(full=True)["piles"] == new_game(f"SH1-C4-{DEAL}").view(full=True)["piles"]


def test_c6_undo_of_a_group_move_a_tap_and_a_take_back() -> None:
    """C6: undo of each kind of move restores cards and points exactly."""
    game = position(C4, t1="2D 9C 8C", t2="TC", t3="AS", f2="AH 2H 3H", t5="4H")
    start = game.view(full=True)
    game.apply(Move("t1", "t2", 2))
    game.apply(Tap("t3"))
    game.apply(Move("f2", "c1"))
    for _ in range(3):
        game.apply(Undo())
    after = game.view(full=True)
    assert after["piles"] == start["piles"] and after["score"] == start["score"] == 0
    assert after["undo"] == 0 and after["moves"] == 3


def test_c18_nothing_to_undo_refused() -> None:
    """C18: undo with nothing to undo is refused (``no_undo``), on a fresh deal and after
    everything has been undone."""
    refuse(new_game(f"SH1-C2-{DEAL}"), Undo(), "no_undo")
    game = position(C4, c1="5D")
    game.apply(Move("c1", "c2"))
    game.apply(Undo())
    refuse(game, Undo(), "no_undo")
    refuse(game, {"type": "undo"}, "no_undo")


def test_c6_c18_undo_covers_the_last_100_actions_only() -> None:
    """C6/C18: the history keeps the last 100 actions; after 105 moves, 100 undos are
    accepted (back to the position after move 5) and the 101st is ``undo_limit``."""
    game = position(C4, c1="5D")
    cells = ["c1", "c2", "c3", "c4"]
    for i in range(105):
        game.apply(Move(cells[i % 4], cells[(i + 1) % 4]))
    assert game.moves == 105 and game.view()["undo"] == 100
    for _ in range(100):
        game.apply(Undo())
    # after 5 moves the 5D sits in cells[5 % 4] = c2
    assert texts(game, "c2") == ["5D"] and game.moves == 105
    error = refuse(game, Undo(), "undo_limit")
    assert "100" in error.message


def test_c6_exactly_100_moves_can_all_be_undone() -> None:
    """C6: with exactly 100 moves all 100 undo; the next undo has nothing to undo."""
    game = position(C4, c1="5D")
    for i in range(100):
        game.apply(Move(f"c{i % 2 + 1}", f"c{(i + 1) % 2 + 1}"))
    for _ in range(100):
        game.apply(Undo())
    assert texts(game, "c1") == ["5D"]
    refuse(game, Undo(), "no_undo")


# --- tap (C13) -----------------------------------------------------------------------


@pytest.mark.parametrize("source", ["t1", "c3"])
def test_c13_tap_sends_the_card_to_its_foundation(source: str) -> None:
    """B/C13: one tap on a top card (column or cell) sends it to the foundation that
    accepts it; recorded as the concrete move."""
    game = position(C4, f3="AD 2D", **{source: "3D"})
    assert game.apply(Tap(source)) == Move(source, "f3")
    assert texts(game, "f3") == ["AD", "2D", "3D"] and game.score == 10
    assert game.history[-1].action == Move(source, "f3")


def test_c13_tap_that_finds_no_foundation_refused_and_changes_nothing() -> None:
    """C13: a tap that finds no place is refused and recorded nowhere (a tap never goes
    to a column or a cell, even when one would accept the card)."""
    game = position(C4, t1="7H", t2="8H")
    refuse(game, Tap("t1"), "no_foundation")
    assert game.moves == 0 and game.view()["undo"] == 0


@pytest.mark.parametrize("tap", [Tap, DoubleTap])
def test_c13_tap_on_a_foundation_spot_refused(tap: type) -> None:
    """C13: taps on a foundation spot are refused (``tap_foundation``)."""
    game = position(C4, f1="AS", t1="2D")
    refuse(game, tap("f1"), "tap_foundation")


def test_c13_stock_action_refused_in_seahaven() -> None:
    """C13/B: Seahaven has no stock: the ``stock`` action is ``no_stock``."""
    game = new_game(f"SH1-C4-{DEAL}")
    refuse(game, Stock(), "no_stock")
    refuse(game, {"type": "stock"}, "no_stock")
    assert Stock() not in game.legal_moves
    assert all(isinstance(m, Move) for m in game.legal_moves)


def test_c13_tap_with_a_count_above_one_refused() -> None:
    """C13: a tap sends one card to a foundation; a count above 1 is refused."""
    game = position(C4, t1="3S 2S", f1="AS")
    refuse(game, Tap("t1", 2), "tap_run")


# --- double tap (B, C14) -------------------------------------------------------------


def test_c14_double_tap_foundation_first() -> None:
    """C14: double tap looks at the foundations first: 2S goes to f1 even though 3S on
    t3 and the empty cells would take it."""
    game = position(C4, t1="2S", t3="3S", f1="AS")
    assert game.apply(DoubleTap("t1")) == Move("t1", "f1")
    assert game.score == 10


def test_c14_double_tap_column_before_cell() -> None:
    """C14: then the column that accepts the card (the only one: a Seahaven card builds
    on one card only), even if short and to the right, before any empty cell or column."""
    game = position(C4, t1="2C 3C 4C 5C 7H", t2="9S 4D 6D", t8="8H")
    assert game.apply(DoubleTap("t1")) == Move("t1", "t8")
    assert texts(game, "t8") == ["8H", "7H"]


def test_c14_double_tap_king_to_leftmost_empty_column_before_cells() -> None:
    """C14/C8: a king that is not alone goes to the leftmost empty column, before cells."""
    game = position(C4, t1="3D KH", t2="4S", t3="5C", t5="6C")
    assert game.apply(DoubleTap("t1")) == Move("t1", "t4")
    assert texts(game, "t4") == ["KH"]


def test_c14_double_tap_cell_king_to_empty_column() -> None:
    """C14: a king in a cell goes to the leftmost empty column."""
    game = position(C4, c1="KH", t1="2S", t2="3S")
    assert game.apply(DoubleTap("c1")) == Move("c1", "t3")


def test_c14_double_tap_never_moves_a_lone_king_to_another_empty_column() -> None:
    """C14: a king that is its whole column never goes into an empty column (that would
    change nothing): it goes to the leftmost empty cell, or is refused (``no_place``)."""
    game = position(C4, t1="KH", c1="2C")
    assert game.apply(DoubleTap("t1")) == Move("t1", "c2")
    full = position(C4, t1="KH", c1="2C", c2="4C", c3="6C", c4="8C")
    refuse(full, DoubleTap("t1"), "no_place")


def test_c14_double_tap_non_king_goes_to_leftmost_empty_cell() -> None:
    """C14/C8: with no foundation or column, a non-king goes to the leftmost empty cell
    (never to an empty column)."""
    game = position(C4, t1="7H", c1="2C", c3="4C")
    assert game.apply(DoubleTap("t1")) == Move("t1", "c2")
    assert texts(game, "c2") == ["7H"] and game.piles["t5"] == []


def test_c14_double_tap_never_moves_a_cell_card_into_another_cell() -> None:
    """C14: a cell's card never goes into another cell: with nothing else it is refused
    (``no_place``), nothing changes and nothing is recorded."""
    game = position(C4, c1="7H", t1="2S")
    error = refuse(game, DoubleTap("c1"), "no_place")
    assert "7H" in error.message
    assert game.moves == 0 and game.view()["undo"] == 0


def test_c14_double_tap_cell_card_onto_column() -> None:
    """C14: a cell's card goes onto the column that accepts it."""
    game = position(C4, c2="7H", t4="8H")
    assert game.apply(DoubleTap("c2")) == Move("c2", "t4")


def test_c14_double_tap_no_place_refused() -> None:
    """C14: refused when nothing is found (all cells full, no build, no foundation)."""
    game = dead()
    refuse(game, DoubleTap("t3"), "no_place")


def test_c14_double_tap_recorded_as_the_concrete_move() -> None:
    """PRODUCT Contracts: the engine records a double tap as the move it made."""
    game = position(C4, t1="7H", t2="8H")
    game.apply(DoubleTap("t1"))
    assert game.to_json()["history"][-1]["action"] == {
        "type": "move",
        "from": "t1",
        "to": "t2",
        "count": 1,
    }


def test_c14_double_tap_group_to_accepting_column() -> None:
    """Engine decision: double tap with count > 1 moves the run to the column that
    accepts its head."""
    game = position(C4, t1="2C 8H 7H 6H", t2="4S", t3="3C 9H")
    assert game.apply(DoubleTap("t1", 3)) == Move("t1", "t3", 3)
    assert texts(game, "t3") == ["3C", "9H", "8H", "7H", "6H"]


def test_c14_double_tap_king_led_run_to_leftmost_empty_column() -> None:
    """Engine decision: a king-led run (count > 1) goes to the leftmost empty column."""
    game = position(C4, t1="2C KS QS", t2="4D", t3="5D")
    assert game.apply(DoubleTap("t1", 2)) == Move("t1", "t4", 2)


def test_c14_double_tap_group_respects_capacity() -> None:
    """Engine decision: the double-tapped run moves only within the group capacity:
    3 cards into the only empty column need 2 free cells ((2+1) × 2^0)."""
    columns = {"t1": "2C KS QS JS", **dict(zip(COLUMNS[1:9], FILL_COLUMNS, strict=True))}
    one_free = position(C4, c1="4C", c2="6C", c3="8C", **columns)
    refuse(one_free, DoubleTap("t1", 3), "no_place")
    two_free = position(C4, c1="4C", c2="6C", **columns)
    assert two_free.apply(DoubleTap("t1", 3)) == Move("t1", "t10", 3)


def test_c14_double_tap_group_never_into_a_cell_nor_whole_column_to_empty() -> None:
    """C14: a run is never put into a cell, and a king-led run that is its whole column
    never goes into another empty column: ``no_place``."""
    game = position(C4, t1="KS QS")
    refuse(game, DoubleTap("t1", 2), "no_place")


# --- dead end (C10) ------------------------------------------------------------------


def test_c10_dead_end_when_nothing_can_move() -> None:
    """C10: all cells full and no column or foundation move: ``dead_end`` is True."""
    game = dead()
    assert list(game.legal_moves) == []
    assert game.view()["dead_end"] is True and game.view()["won"] is False


def test_c10_dead_end_when_only_cell_to_cell_moves_are_left() -> None:
    """C10: when the only legal moves left are cell-to-cell moves, ``dead_end`` is True."""
    game = position(C4, c1="2C", c2="4C", c3="6C")
    moves = list(game.legal_moves)
    assert Move("c1", "c4") in moves
    assert moves and all(m.source[0] == "c" and m.target[0] == "c" for m in moves)
    assert game.view()["dead_end"] is True


def test_c10_dead_end_empty_column_without_a_king() -> None:
    """C10: an empty column alone does not help when no king can move there."""
    game = dead(t9="")
    assert game.view()["dead_end"] is True


def test_c10_dead_end_ignores_a_whole_column_into_another_empty_column() -> None:
    """Engine decision (seahaven.py): moving a whole column into another empty column
    changes nothing, so it is not "a legal move left"."""
    game = dead(t8="", t9="KD")
    assert Move("t9", "t8") in game.legal_moves
    assert game.view()["dead_end"] is True


def test_c10_dead_end_ignores_take_back_onto_a_column() -> None:
    """Engine decision (seahaven.py): a take-back from a foundation onto a column does
    not count as "a legal move left" (here KD back into an empty column)."""
    game = dead(t9="", f3=up("D"))
    assert Move("f3", "t9") in game.legal_moves
    assert game.view()["dead_end"] is True


@pytest.mark.parametrize(
    "changes",
    [
        pytest.param({"c4": ""}, id="free-cell"),
        pytest.param({"t1": "AS"}, id="column-to-foundation"),
        pytest.param({"t1": "3S"}, id="column-onto-column"),
        pytest.param({"c4": "7H"}, id="cell-onto-column"),
        pytest.param({"c4": "2D", "f3": "AD"}, id="cell-to-foundation"),
        pytest.param({"t9": "", "t10": "8H KD"}, id="covered-king-to-empty-column"),
        pytest.param({"t9": "", "c4": "KD"}, id="cell-king-to-empty-column"),
        pytest.param({"t7": "", "t9": "", "t8": "4H KD QD"}, id="covered-king-run-to-empty-column"),
    ],
)
def test_c10_no_dead_end_when_a_real_move_exists(changes: dict[str, str]) -> None:
    """C10: ``dead_end`` is False as soon as any real move exists."""
    game = dead(**changes)
    assert game.view()["dead_end"] is False


def test_c10_real_deal_is_not_a_dead_end() -> None:
    """C10: a fresh deal (two empty cells) is not a dead end."""
    for variant in ("C4", "C2", "C1"):
        assert new_game(f"SH1-{variant}-{DEAL}").view()["dead_end"] is False


# --- after the win (C19) -------------------------------------------------------------


@pytest.mark.parametrize("where", ["c1", "t1"])
def test_c19_after_the_win_every_action_is_refused(where: str) -> None:
    """C19: 51 cards on the foundations and the KC in a cell or column: the winning move
    wins; afterwards every action, undo included, is ``game_over``; not a dead end."""
    game = position(C4, f1=up("S"), f2=up("H"), f3=up("D"), f4=up("C", 1, 12), **{where: "KC"})
    assert not game.won
    game.apply(Move(where, "f4"))
    view = game.view()
    assert view["won"] is True and game.won is True
    assert view["score"] == 10 and view["dead_end"] is False
    for action in (
        Undo(),
        Move("f4", "c2"),
        Move("f4", "t3"),
        Tap("f4"),
        DoubleTap("f4"),
        Tap(where),
        Stock(),
        {"type": "undo"},
        {"type": "move", "from": "f1", "to": "c3"},
    ):
        refuse(game, action, "game_over")
    assert list(game.legal_moves) == [] and game.targets("f4") == []


# --- refusals change nothing; malformed vs illegal (C12, C20) -----------------------


@pytest.mark.parametrize(
    "action, code",
    [
        (Move("t1", "t2"), "wrong_build"),
        (Move("t1", "c1"), "cell_occupied"),
        (Move("t1", "t4"), "kings_only"),
        (Move("t1", "f1"), "foundation_suit"),
        (Move("t1", "f"), "no_foundation"),
        (Move("t3", "t2", 2), "not_a_run"),
        (Move("t5", "t1"), "empty_pile"),
        (Move("t1", "t1"), "same_pile"),
        (Move("f1", "f2"), "foundation_to_foundation"),
        (Move("c1", "c2", 2), "not_enough_cards"),
        (Tap("t1"), "no_foundation"),
        (DoubleTap("c1"), "no_place"),
        (Stock(), "no_stock"),
        (Undo(), "no_undo"),
    ],
)
def test_c12_refusals_change_nothing(action: Any, code: str) -> None:
    """C12/C13: a refused action changes nothing (``to_json`` identical) and carries its
    reason code and a one-sentence message."""
    game = position(
        C4, t1="7H", t2="8D", t3="2S 9C 7C", c1="QS", c2="4D", c3="6C", c4="8C", f1="AS"
    )
    refuse(game, action, code)


@pytest.mark.parametrize(
    "variant, data",
    [
        ("C2", {"type": "move", "from": "t1", "to": "c3"}),
        ("C2", {"type": "move", "from": "c3", "to": "t1"}),
        ("C1", {"type": "move", "from": "t1", "to": "c2"}),
        ("C4", {"type": "move", "from": "t1", "to": "c5"}),
        ("C4", {"type": "move", "from": "t1", "to": "s"}),
        ("C4", {"type": "move", "from": "w", "to": "t1"}),
        ("C4", {"type": "move", "from": "t11", "to": "t1"}),
        ("C4", {"type": "move", "from": "t1", "to": "t11"}),
        ("C4", {"type": "move", "from": "t1", "to": "f5"}),
        ("C4", {"type": "move", "from": "f", "to": "t1"}),
        ("C4", {"type": "tap", "from": "s"}),
        ("C4", {"type": "double_tap", "from": "w"}),
        ("C2", {"type": "tap", "from": "c3"}),
    ],
)
def test_c20_unknown_pile_is_malformed(variant: str, data: dict[str, Any]) -> None:
    """C20: a pile id this variant does not have (c3 in C2, s, w, t11, f5, ``f`` as a
    source) is malformed: ``MalformedError`` with code ``bad_pile``, nothing changes."""
    game = new_game(f"SH1-{variant}-{DEAL}")
    error = refuse(game, data, "bad_pile", MalformedError)
    assert isinstance(error, ValueError) and not isinstance(error, IllegalActionError)


def test_c20_unknown_pile_in_an_action_object_is_malformed_too() -> None:
    """C20: the same holds for action objects and for ``targets``: c3 in a C2 game."""
    game = new_game(f"SH1-C2-{DEAL}")
    refuse(game, Move("t1", "c3"), "bad_pile", MalformedError)
    refuse(game, Tap("s"), "bad_pile", MalformedError)
    with pytest.raises(MalformedError) as info:
        game.targets("c3")
    assert info.value.code == "bad_pile"


def test_c12_illegal_and_malformed_errors_are_value_errors_with_code_and_message() -> None:
    """C12/C20: an illegal move raises ``IllegalActionError``, a malformed one
    ``MalformedError``; both are ``ValueError`` with ``.code`` and a non-empty ``.message``."""
    game = position(C4, t1="7H", t2="8D")
    with pytest.raises(ValueError) as illegal:
        game.apply_json({"type": "move", "from": "t1", "to": "t2"})
    assert type(illegal.value) is IllegalActionError
    assert illegal.value.code == "wrong_build" and illegal.value.message.strip()
    with pytest.raises(ValueError) as malformed:
        game.apply_json({"type": "move", "from": "t1", "to": "t11"})
    assert type(malformed.value) is MalformedError
    assert malformed.value.code == "bad_pile" and malformed.value.message.strip()


def test_c12_refusal_message_names_the_rule() -> None:
    """C12: the explanation names the Seahaven rule (same suit, one rank higher)."""
    game = position(C4, t1="7H", t2="8D")
    error = refuse(game, Move("t1", "t2"), "wrong_build")
    assert "suit" in error.message and "7H" in error.message and "8D" in error.message
    kings = refuse(position(C4, t1="QS"), Move("t1", "t2"), "kings_only")
    assert "king" in kings.message.lower()


# --- legal targets and legal moves ---------------------------------------------------


def test_targets_lists_every_destination_of_a_card() -> None:
    """``targets(pile)``: the concrete piles the top card may go to, and only those."""
    game = position(C4, t1="7H", t2="8H", c1="2C", f2=up("H", 1, 6))
    assert game.targets("t1") == ["t2", "c2", "c3", "c4", "f2"]
    assert game.targets("c1") == ["c2", "c3", "c4"]
    assert game.targets("t5") == []
    assert game.targets("f2") == ["t1", "c2", "c3", "c4"]  # 6H back onto 7H; not 8H, t5


def test_targets_of_a_group() -> None:
    """``targets(pile, n)``: a run of 2 goes only onto the column that accepts its head
    (never a cell, a foundation or an empty column unless king-led)."""
    game = position(C4, t1="2C 9S 8S", t2="TS", t3="KD QD")
    assert game.targets("t1", 2) == ["t2"]
    assert game.targets("t1", 3) == []
    assert game.targets("t3", 2) == ["t4", "t5", "t6", "t7", "t8", "t9", "t10"]


def test_legal_moves_membership_with_tap_and_f() -> None:
    """``legal_moves``: iterate the concrete moves; ``in`` also answers for a Tap, a
    DoubleTap and a Move to ``f``."""
    game = position(C4, t1="7H", t2="8H", t3="3D", f2=up("H", 1, 6))
    moves = list(game.legal_moves)
    assert Move("t1", "f2") in moves and Move("t1", "t2") in moves
    assert Move("t1", "f") not in moves  # iteration gives concrete spots only
    assert Move("t1", "f") in game.legal_moves
    assert Tap("t1") in game.legal_moves and DoubleTap("t1") in game.legal_moves
    assert Move("t3", "f") not in game.legal_moves and Tap("t3") not in game.legal_moves
    assert Move("t3", "t2") not in game.legal_moves
    assert game.legal_moves.count() == len(moves)


def test_legal_moves_match_what_apply_accepts_on_a_real_deal() -> None:
    """``legal_moves`` lists exactly the concrete moves ``apply`` accepts (all piles,
    counts 1..13), after a few moves of a real deal."""
    game = new_game(f"SH1-C4-{DEAL}")
    rng = random.Random(3)
    for _ in range(8):
        game.apply(rng.choice(list(game.legal_moves)))
    accepted = set()
    for src in game.piles:
        for dst in game.piles:
            for n in range(1, 14):
                try:
                    game.copy().apply(Move(src, dst, n))
                except IllegalActionError:
                    continue
                accepted.add(Move(src, dst, n))
    assert set(game.legal_moves) == accepted
    assert accepted


# --- what the service asks of a game -----------------------------------------------


def test_a_position_is_worth_a_dead_end_proof_only_with_every_cell_full() -> None:
    full = position(C4, t1="2C", c1="3D", c2="4D", c3="5D", c4="6D")
    assert full.worth_proving_lost()
    one_free = position(C4, t1="2C", c1="3D", c2="4D", c3="5D")
    assert not one_free.worth_proving_lost()
    single = position("SH1-C1-AAAAAJ2", t1="2C", c1="3D")
    assert single.worth_proving_lost()


def test_seahaven_hides_no_card_and_easy_harp_does() -> None:
    assert not new_game(C4).hides_cards
    assert new_game("EH1-N-AAAAAAF").hides_cards
    assert not new_game("EH1-N-AAAAAAF").worth_proving_lost()
