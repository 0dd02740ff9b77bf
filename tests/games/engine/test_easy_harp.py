"""Easy Harp rules (RULES.md Part A) and the decisions of Part C, one test per rule.

Positions are built by hand with :func:`position`; every pile not named is
empty and the cards not named are simply absent. Each test name starts with the
part of RULES.md it checks (``a_`` = Part A, ``c3_`` = decision C3, …).
"""

import random

import pytest

from games.engine import UNDO_LIMIT, DoubleTap, Move, Stock, Tap, Undo, new_game
from games.engine.errors import EngineError, IllegalActionError, MalformedError
from tests.support.positions import position, texts

CODE = "EH1-N-AAAAAAB"
COLUMNS = [f"t{i}" for i in range(1, 10)]
RANKS = "A23456789TJQK"
ONE_AT_A_TIME = (
    "Easy Harp moves one card at a time between columns; only a king-led run may move "
    "together, and only into an empty column."
)


def eh(**kwargs):
    return position(CODE, **kwargs)


def suit_up_to(suit, last="K"):
    """``"AS 2S … <last>S"``: a foundation built from the ace up to ``last``."""
    return " ".join(r + suit for r in RANKS[: RANKS.index(last) + 1])


def refuse(game, action, code=None):
    """Apply ``action``, expect a refusal (with ``code``) that changes nothing at all."""
    before = game.to_json()
    with pytest.raises(IllegalActionError) as info:
        game.apply(action)
    err = info.value
    if code is not None:
        assert err.code == code, f"{action!r}: expected {code}, got {err.code}: {err.message}"
    assert isinstance(err.code, str) and err.code
    assert isinstance(err.message, str) and err.message.strip()
    assert game.to_json() == before, f"refused {action!r} changed the game"
    return err


def draw(game):
    """Tap the stock and return the card it turned onto the waste."""
    game.apply(Stock())
    return texts(game, "w")[-1]


def after_undo_expected(before):
    """The state ``before`` an action, as undo must restore it: only ``moves`` differs (C5)."""
    expected = dict(before)
    expected["moves"] = before["moves"] + 1
    return expected


# --- Part A: allowed moves ---------------------------------------------------


@pytest.mark.parametrize("top", ["8S", "8C"])
def test_a_onto_column_opposite_colour_one_higher(top):
    """RULES.md A: "The 7♥ can go onto the 8♠ or the 8♣"."""
    game = eh(t1=top, t2="7H")
    assert game.apply(Move("t2", "t1")) == Move("t2", "t1")
    assert texts(game, "t1") == [top, "7H"]
    assert texts(game, "t2") == []
    assert game.moves == 1


@pytest.mark.parametrize("top", ["8H", "8D", "9S", "7S", "6S", "7H"])
def test_a_onto_column_refused_same_colour_or_wrong_rank(top):
    """RULES.md A: opposite colour and exactly one rank higher, nothing else."""
    game = eh(t1=top, t2="7H")
    err = refuse(game, Move("t2", "t1"), "wrong_build")
    assert "7H" in err.message and top in err.message
    assert "t1" not in game.targets("t2")


def test_a_onto_column_face_up_card_only():
    """RULES.md A: the card goes onto a *face-up* card; a buried face-down 8♠ does not count,
    and once uncovered it turns up by itself and then accepts the 7♥."""
    game = eh(t1="8S 2D", down={"t1": 1}, t2="7H", f3="AD")
    refuse(game, Move("t2", "t1"), "wrong_build")
    game.apply(Move("t1", "f"))
    assert game.down["t1"] == 0
    game.apply(Move("t2", "t1"))
    assert texts(game, "t1") == ["8S", "7H"]


@pytest.mark.parametrize("six", ["6S", "6C"])
def test_a_twin_cards_black_six_has_four_places(six):
    """RULES.md A: every card exists twice, so a black 6 has four places: both 7♥, both 7♦."""
    game = eh(t1="7H", t2="7D", t3="7H", t4="7D", t5=six, t6="7S", t7="8D")
    assert game.targets("t5") == ["t1", "t2", "t3", "t4"]
    for column in ["t1", "t2", "t3", "t4"]:
        assert Move("t5", column) in game.legal_moves


def test_a_waste_only_top_card_is_playable():
    """RULES.md A: from the waste only the top card is playable; never several at once."""
    game = eh(t1="8S", w="7H 6C")  # 6C is the top of the waste
    assert game.targets("w") == []
    refuse(game, Move("w", "t1"), "wrong_build")
    refuse(game, Move("w", "t1", 2), "waste_one_card")
    refuse(game, Move("w", "t2", 2), "waste_one_card")
    refuse(game, Tap("w"), "no_foundation")


def test_a_waste_to_column():
    """RULES.md A and C3: the top waste card goes onto a column, +5 points."""
    game = eh(t1="8S", w="6C 7H")
    assert game.targets("w") == ["t1"]
    game.apply(Move("w", "t1"))
    assert texts(game, "t1") == ["8S", "7H"]
    assert texts(game, "w") == ["6C"]
    assert game.score == 5


def test_a_waste_to_foundation():
    """RULES.md A and C3: the top waste card goes onto its foundation, +10 points."""
    game = eh(w="7H AS", s="2S")
    assert game.apply(Move("w", "f")) == Move("w", "f1")
    assert texts(game, "f1") == ["AS"]
    assert texts(game, "w") == ["7H"]
    assert game.score == 10


def test_a_uncovered_face_down_card_turns_up_by_itself():
    """RULES.md A and C3: the uncovered face-down card turns face up, +5 points, and is
    playable at once."""
    game = eh(t1="KD 5C 8S", down={"t1": 2}, t2="9D", t3="6H")
    game.apply(Move("t1", "t2"))
    assert texts(game, "t1") == ["KD", "5C"]
    assert game.down["t1"] == 1
    assert game.view()["piles"]["t1"] == [None, "5C"]
    assert game.score == 5
    game.apply(Move("t1", "t3"))  # the turned-up 5♣ plays onto the 6♥
    assert game.down["t1"] == 0
    assert game.view()["piles"]["t1"] == ["KD"]
    assert game.score == 10


def test_a_no_turn_up_points_when_nothing_was_face_down():
    """RULES.md C3: only a face-down card turned up earns the 5 points."""
    game = eh(t1="KD 8S", t2="9D")
    game.apply(Move("t1", "t2"))
    assert game.score == 0
    assert game.down["t1"] == 0


# --- Part A: one card at a time ----------------------------------------------


def test_a_one_card_at_a_time_run_cannot_move_as_a_whole():
    """RULES.md A "One card at a time" and C12: black 8, red 7, black 6 cannot go onto a red 9
    as a whole; the refusal names the rule."""
    game = eh(t1="8S 7H 6C", t2="9H")
    err = refuse(game, Move("t1", "t2", 3), "one_card_at_a_time")
    assert err.message == ONE_AT_A_TIME
    assert "t2" not in game.targets("t1", 3)
    assert Move("t1", "t2", 3) not in game.legal_moves


def test_a_one_card_at_a_time_run_not_king_led_cannot_go_to_empty_column():
    """RULES.md A: only a king-led run moves as a whole, so 8-7-6 cannot enter an empty column."""
    game = eh(t1="8S 7H 6C", t2="9H")  # t3..t9 are empty
    refuse(game, Move("t1", "t3", 3))
    refuse(game, Move("t1", "t3", 2))
    assert game.targets("t1", 3) == []


def test_a_one_card_at_a_time_run_taken_apart_from_its_lower_end():
    """RULES.md A: the run is taken apart card by card, the 6 first."""
    game = eh(t1="8S 7H 6C", t2="9H", t3="7D", t4="8C")
    refuse(game, Move("t1", "t2"), "wrong_build")  # the 6♣ is on top, not the 8♠
    game.apply(Move("t1", "t3"))
    game.apply(Move("t1", "t4"))
    game.apply(Move("t1", "t2"))
    assert texts(game, "t1") == []
    assert texts(game, "t2") == ["9H", "8S"]
    assert texts(game, "t3") == ["7D", "6C"]
    assert texts(game, "t4") == ["8C", "7H"]


# --- Part A: empty columns and king-led runs ----------------------------------


@pytest.mark.parametrize("card", ["QS", "AH", "5D"])
def test_a_empty_column_accepts_only_a_king(card):
    """RULES.md A: an empty column accepts only a king."""
    game = eh(t1=card, t2="9C", w=card)
    refuse(game, Move("t1", "t3"), "kings_only")
    refuse(game, Move("w", "t3"), "kings_only")
    assert not any(t in game.targets("t1") for t in COLUMNS if not game.piles[t])


def test_a_empty_column_refuses_non_king_even_to_uncover_a_face_down_card():
    """RULES.md A: any other card is refused in an empty column, even to uncover one."""
    game = eh(t1="3D QS", down={"t1": 1})
    refuse(game, Move("t1", "t2"), "kings_only")
    assert game.down["t1"] == 1


def test_a_empty_column_accepts_a_king_from_column_or_waste():
    """RULES.md A: a king may go into an empty column (uncovering earns +5, from waste +5)."""
    game = eh(t1="3D KS", down={"t1": 1}, w="KH")
    game.apply(Move("t1", "t2"))
    assert texts(game, "t2") == ["KS"] and game.down["t1"] == 0
    assert game.score == 5
    game.apply(Move("w", "t3"))
    assert texts(game, "t3") == ["KH"]
    assert game.score == 10


def test_a_king_led_run_moves_as_a_whole_into_an_empty_column():
    """RULES.md A: a run headed by a king, alternating and descending, moves into an empty
    column as a whole."""
    game = eh(t1="2D KS QH JC", down={"t1": 1}, t3="5C", t4="6H")
    empty = [t for t in COLUMNS if not game.piles[t]]
    assert game.targets("t1", 3) == empty
    assert Move("t1", "t2", 3) in game.legal_moves
    assert game.apply(Move("t1", "t2", 3)) == Move("t1", "t2", 3)
    assert texts(game, "t2") == ["KS", "QH", "JC"]
    assert texts(game, "t1") == ["2D"]
    assert game.down["t1"] == 0
    assert game.score == 5


def test_a_king_led_run_of_thirteen_cards_moves_whole():
    """RULES.md A: up to 13 cards, king to ace."""
    run = "KS QH JC TD 9S 8H 7C 6D 5S 4H 3C 2D AS"
    game = eh(t1="9H " + run, down={"t1": 1}, t3="4C")
    game.apply(Move("t1", "t2", 13))
    assert " ".join(texts(game, "t2")) == run
    assert texts(game, "t1") == ["9H"]


def test_a_king_led_run_only_into_an_empty_column():
    """RULES.md A: a king-led run cannot be moved as a whole anywhere else: not onto a column,
    not onto a foundation."""
    game = eh(t1="2D KS QH JC", down={"t1": 1}, t3="5C", f4=suit_up_to("C", "T"))
    refuse(game, Move("t1", "t3", 3), "one_card_at_a_time")
    refuse(game, Move("t1", "f4", 3))
    refuse(game, Move("t1", "f", 3))
    refuse(game, Move("t1", "t3", 2), "one_card_at_a_time")
    refuse(game, Move("t1", "t2", 2), "one_card_at_a_time")  # headed by the queen


def test_a_king_led_run_with_a_face_down_card_in_the_count():
    """RULES.md A: only face-up cards move; a count reaching a face-down card is refused."""
    game = eh(t1="KS QH JC", down={"t1": 1})
    refuse(game, Move("t1", "t2", 3), "face_down")


@pytest.mark.parametrize("column", ["KS QS JD", "KS QH TC", "KS JH TC", "KS QH JC TC"])
def test_a_king_headed_non_run_cannot_move_whole(column):
    """RULES.md A: only a run alternating in colour and descending in rank moves together."""
    game = eh(t1=column)
    n = len(column.split())
    refuse(game, Move("t1", "t2", n), "not_a_run")
    assert game.targets("t1", n) == []


# --- Part A / C7: foundations -------------------------------------------------


def test_c7_foundation_spots_are_s_h_d_c_s_h_d_c():
    """RULES.md C7: f1-f8 are ♠ ♥ ♦ ♣ ♠ ♥ ♦ ♣; each ace finds its own suit's spot."""
    game = eh(t1="AS AH AD AC AS AH AD AC")
    landed = [game.apply(Tap("t1")).target for _ in range(8)]
    assert landed == ["f4", "f3", "f2", "f1", "f8", "f7", "f6", "f5"]
    for spot, suit in zip([f"f{i}" for i in range(1, 9)], "SHDCSHDC", strict=True):
        assert texts(game, spot) == ["A" + suit]


@pytest.mark.parametrize(
    ("ace", "spots"),
    [("AS", {"f1", "f5"}), ("AH", {"f2", "f6"}), ("AD", {"f3", "f7"}), ("AC", {"f4", "f8"})],
)
def test_a_ace_goes_only_into_its_own_suits_spot(ace, spots):
    """RULES.md A: an ace goes into an empty spot of its own suit, never another suit's."""
    game = eh(t1=ace)
    assert {t for t in game.targets("t1") if t.startswith("f")} == spots
    for i in range(1, 9):
        spot = f"f{i}"
        if spot in spots:
            assert Move("t1", spot) in game.legal_moves
        else:
            refuse(game, Move("t1", spot), "foundation_suit")


def test_a_foundation_built_in_order_ace_to_king():
    """RULES.md A: ace first, then 2, 3 … up to king, one card at a time."""
    game = eh(t1="2S", t2="3S", f5="AS")
    refuse(game, Move("t1", "f1"), "foundation_order")  # empty spot needs the ace
    refuse(game, Move("t2", "f5"), "foundation_order")  # AS needs the 2 next
    game.apply(Move("t1", "f5"))
    game.apply(Move("t2", "f5"))
    assert texts(game, "f5") == ["AS", "2S", "3S"]
    game = eh(t1="KS", f1=suit_up_to("S", "Q"))
    game.apply(Move("t1", "f1"))
    assert texts(game, "f1") == suit_up_to("S").split()


def test_a_complete_foundation_takes_nothing_more():
    """RULES.md A: a foundation ends at the king."""
    game = eh(t1="AS", f1=suit_up_to("S"))
    refuse(game, Move("t1", "f1"), "foundation_order")
    assert game.apply(Move("t1", "f")) == Move("t1", "f5")


def test_c7_f_picks_the_lowest_numbered_accepting_spot():
    """RULES.md A and C7: a card dropped on the foundation area goes to the first spot that
    accepts it; two empty heart spots → f2 first, then the second ace of hearts to f6."""
    game = eh(t1="AH", t2="AH")
    assert game.apply(Move("t1", "f")) == Move("t1", "f2")
    assert game.apply(Move("t2", "f")) == Move("t2", "f6")
    assert texts(game, "f2") == ["AH"] and texts(game, "f6") == ["AH"]


def test_c7_f_skips_spots_that_do_not_accept():
    """RULES.md C7: "the first" is the lowest-numbered spot that *accepts* the card."""
    game = eh(f2="AH", f6="AH 2H", t1="3H", t2="2H")
    assert game.apply(Move("t1", "f")) == Move("t1", "f6")
    assert game.apply(Move("t2", "f")) == Move("t2", "f2")


def test_c7_f_with_nothing_accepting_is_refused():
    """RULES.md A: the foundation area refuses a card that no spot accepts."""
    game = eh(t1="5S", f1="AS 2S 3S", w="2H")
    err = refuse(game, Move("t1", "f"), "no_foundation")
    assert "5S" in err.message
    refuse(game, Move("w", "f"), "no_foundation")


def test_c7_recorded_action_names_the_concrete_spot():
    """PRODUCT.md Actions: the engine records each action resolved; a drop on f names its spot."""
    game = eh(t1="AD")
    game.apply(Move("t1", "f"))
    recorded = game.to_json()["history"][-1]["action"]
    assert recorded == {"type": "move", "from": "t1", "to": "f3", "count": 1}


# --- Part A / C15: stock and passes -------------------------------------------


def test_a_stock_tap_draws_one_card_onto_the_waste():
    """RULES.md A: tapping the stock turns one card (the top of s) onto the waste."""
    game = eh(s="AS 2S 3S")
    assert game.apply(Stock()) == Stock()
    assert texts(game, "w") == ["3S"]
    assert texts(game, "s") == ["AS", "2S"]
    game.apply(Stock())
    assert texts(game, "w") == ["3S", "2S"]
    assert texts(game, "s") == ["AS"]
    assert game.moves == 2 and game.score == 0


def test_c15_pass_returns_the_whole_waste_in_the_same_order():
    """RULES.md A and C15: with the stock empty one tap returns the whole waste; the first
    card drawn in the new pass is the first card drawn in the previous one."""
    game = eh(s="AS 2S 3S")
    first = [draw(game) for _ in range(3)]
    assert first == ["3S", "2S", "AS"]
    assert texts(game, "s") == []
    game.apply(Stock())  # the pass
    assert texts(game, "w") == []
    assert texts(game, "s") == ["AS", "2S", "3S"]
    second = [draw(game) for _ in range(3)]
    assert second == first


def test_c15_passes_are_unlimited_and_free():
    """RULES.md A, C3, C5: passes are unlimited, cost no points, and each counts as a move."""
    game = eh(s="4D 5C", t1="AH")
    game.apply(Move("t1", "f"))
    assert game.score == 10
    for cycle in range(1, 6):
        game.apply(Stock())
        game.apply(Stock())
        game.apply(Stock())  # pass
        assert texts(game, "s") == ["4D", "5C"] and texts(game, "w") == []
        assert game.score == 10
        assert game.moves == 1 + 3 * cycle


def test_c15_pass_with_only_a_waste():
    """RULES.md C15: a stock tap with the stock empty but a waste is a pass, not a refusal."""
    game = eh(w="9C 8D")
    game.apply(Stock())
    assert texts(game, "s") == ["8D", "9C"] and texts(game, "w") == []
    game.apply(Stock())
    assert texts(game, "w") == ["9C"]


def test_c15_stock_and_waste_both_empty_is_refused():
    """RULES.md C15: stock with both the stock and the waste empty is refused."""
    game = eh(t1="5S")
    refuse(game, Stock(), "stock_empty")
    assert Stock() not in game.legal_moves
    assert Stock() not in list(game.legal_moves)


@pytest.mark.parametrize("target", ["t1", "f", "f1", "w"])
def test_a_stock_is_not_a_source(target):
    """RULES.md A: stock cards are drawn with the stock action, never moved."""
    game = eh(s="AS KS")
    refuse(game, Move("s", target), "stock_source")


@pytest.mark.parametrize(("source", "target"), [("t1", "s"), ("t1", "w"), ("w", "s")])
def test_a_stock_and_waste_are_not_destinations(source, target):
    """RULES.md A: cards are never put on the stock or the waste."""
    game = eh(t1="KS", w="AS", s="2S")
    refuse(game, Move(source, target), "not_destination")


# --- Taking back from a foundation (A, C3, C16) --------------------------------


def test_a_take_back_onto_a_column_worth_nothing():
    """RULES.md A and C3: the top card of a foundation can come back onto a column that accepts
    it, neither gaining nor losing points."""
    game = eh(f1="AS 2S 3S", t1="4H", t2="AD")
    game.apply(Move("t2", "f"))
    assert game.score == 10
    assert "t1" in game.targets("f1")
    game.apply(Move("f1", "t1"))
    assert texts(game, "t1") == ["4H", "3S"]
    assert texts(game, "f1") == ["AS", "2S"]
    assert game.score == 10
    assert game.moves == 2


def test_a_take_back_must_fit_the_column():
    """RULES.md A: a take-back obeys the column rules (opposite colour, one higher; kings only
    into an empty column) and lifts one card only."""
    game = eh(f1="AS 2S 3S", t1="4S")
    refuse(game, Move("f1", "t1"), "wrong_build")
    refuse(game, Move("f1", "t2"), "kings_only")
    refuse(game, Move("f1", "t1", 2))
    game = eh(f1=suit_up_to("S"))
    game.apply(Move("f1", "t1"))
    assert texts(game, "t1") == ["KS"] and game.score == 0


@pytest.mark.parametrize("target", ["f5", "f2", "f"])
def test_c16_foundation_to_foundation_refused(target):
    """RULES.md C16: a foundation is never a source for a foundation, `f` included."""
    game = eh(f1="AS", f2="AH")
    refuse(game, Move("f1", target), "foundation_to_foundation")


# --- C3: scoring ----------------------------------------------------------------


def test_c3_ten_points_per_card_on_a_foundation():
    """RULES.md C3: +10 when a card goes onto a foundation."""
    game = eh(t1="3S 2S AS")
    for expected in (10, 20, 30):
        game.apply(Move("t1", "f"))
        assert game.score == expected


def test_c3_column_to_column_earns_nothing():
    """RULES.md C3: nothing else scores: a plain column move is 0."""
    game = eh(t1="8S", t2="7H", t3="9D")
    game.apply(Move("t1", "t3"))
    game.apply(Move("t2", "t3"))
    assert texts(game, "t3") == ["9D", "8S", "7H"]
    assert game.score == 0


def test_c3_foundation_points_only_the_first_time_for_a_physical_card():
    """RULES.md C3: taking a card back and returning it cannot farm points."""
    game = eh(t1="AS", t2="2H")
    game.apply(Move("t1", "f"))
    assert game.score == 10
    game.apply(Move("f1", "t2"))
    assert game.score == 10
    game.apply(Move("t2", "f"))
    assert game.score == 10
    game.apply(Move("f1", "t2"))
    game.apply(Move("t2", "f1"))
    assert game.score == 10
    assert game.moves == 5


def test_c3_twin_of_a_scored_card_earns_its_own_points():
    """RULES.md C3: the twin is another physical card, so it still earns its own 10."""
    game = eh(t1="AS", t2="AS")
    game.apply(Move("t1", "f"))
    game.apply(Move("t2", "f"))
    assert game.score == 20
    assert texts(game, "f1") == ["AS"] and texts(game, "f5") == ["AS"]


def test_c3_twin_reaching_the_same_spot_after_take_back_earns_its_points():
    """RULES.md C3: the mark is per physical card, not per rank, suit or spot."""
    game = eh(t1="AS", t2="AS", t3="2H")
    game.apply(Move("t1", "f1"))  # first AS: +10
    game.apply(Move("f1", "t3"))  # take back: 0
    game.apply(Move("t2", "f1"))  # its twin onto the same spot: +10
    assert game.score == 20


def test_c18_undo_of_a_scoring_move_clears_the_mark():
    """RULES.md C18: undoing a foundation move clears the card's mark, so placing it again
    scores again; the net effect is zero."""
    game = eh(t1="AS")
    game.apply(Move("t1", "f"))
    assert game.score == 10
    game.apply(Undo())
    assert game.score == 0
    assert game.to_json()["scored"] == []
    game.apply(Move("t1", "f"))
    assert game.score == 10


def test_c18_undo_of_a_non_scoring_return_keeps_the_mark():
    """RULES.md C3 and C18: undoing a return that earned nothing leaves the first mark."""
    game = eh(t1="AS", t2="2H")
    game.apply(Move("t1", "f"))
    game.apply(Move("f1", "t2"))
    game.apply(Move("t2", "f"))
    game.apply(Undo())
    assert game.score == 10
    game.apply(Move("t2", "f"))
    assert game.score == 10


@pytest.mark.parametrize(
    ("piles", "moves", "score"),
    [
        pytest.param(
            {"w": "7H 8H 9S", "t1": "TD", "t2": "8C"},
            [("w", "t1"), ("w", "t1"), ("w", "t2")],
            15,
            id="five-points-each-time",
        ),
        pytest.param(
            {"w": "7H", "t1": "8S", "t2": "8C"},
            [("w", "t1"), ("t1", "t2")],
            5,
            id="only-for-the-move-from-the-waste",
        ),
    ],
)
def test_c3_waste_to_column_five_points(piles, moves, score):
    """RULES.md C3: +5 for every card moved from the waste to a column; a waste
    card that later leaves the column does not earn again."""
    game = eh(**piles)
    for source, target in moves:
        game.apply(Move(source, target))
    assert game.score == score


def test_c3_score_never_below_zero_in_random_play():
    """RULES.md A/C3/C6: the score never goes below 0 and undo takes off exactly what was
    earned (random legal play on a real deal, with undos)."""
    rng = random.Random(20240611)
    game = new_game("EH1-N-AAAAAAF")
    for _ in range(600):
        if game.history and rng.random() < 0.2:
            before = game.score
            step_score = game.history[-1].score
            game.apply(Undo())
            assert game.score == before - step_score
        else:
            moves = list(game.legal_moves)
            assert moves, "Easy Harp always has a stock action or a move here"
            game.apply(rng.choice(moves))
        assert game.score >= 0
        for column in COLUMNS:
            pile, down = game.piles[column], game.down[column]
            assert down < len(pile) or down == len(pile) == 0, "a column top is face down"


# --- C5: move counter -------------------------------------------------------------


def test_c5_move_counter():
    """RULES.md C5: move, draw and pass each +1; undo adds and removes nothing; refusals
    count for nothing."""
    game = eh(s="QD", t1="KS", t2="AC")
    game.apply(Stock())
    assert game.moves == 1
    game.apply(Stock())  # pass
    assert game.moves == 2
    game.apply(Move("t2", "f"))
    assert game.moves == 3
    game.apply(Undo())
    assert game.moves == 3
    game.apply(Undo())
    assert game.moves == 3
    refuse(game, Move("t1", "t2"))
    refuse(game, Tap("t1"))
    refuse(game, Move("t1", "f"))
    assert game.moves == 3
    game.apply(Tap("t2"))
    refuse(game, DoubleTap("t1"), "no_place")  # a lone king stays put (C14)
    game.apply(DoubleTap("w"))  # QD onto KS
    assert texts(game, "t1") == ["KS", "QD"]
    assert game.moves == 5


# --- C6 / C18: undo -------------------------------------------------------------------


def test_c6_undo_reverses_a_move_with_its_turn_up_exactly():
    """RULES.md C6: undo reverses the last action exactly, including the turned-up card and
    its points."""
    game = eh(t1="KD 5C 8S", down={"t1": 2}, t2="9D", t3="AS")
    game.apply(Move("t3", "f"))
    before = game.to_json()
    game.apply(Move("t1", "t2"))
    assert game.down["t1"] == 1 and game.score == 15
    assert game.apply(Undo()) == Undo()
    assert game.down["t1"] == 2
    assert game.score == 10
    assert game.view()["piles"]["t1"] == [None, None, "8S"]
    assert game.to_json() == after_undo_expected(before)


def test_c6_undo_reverses_a_draw_and_a_pass():
    """RULES.md C6: undo reverses a stock draw and a stock pass exactly."""
    game = eh(s="AS 2S 3S")
    game.apply(Stock())
    game.apply(Stock())
    before_draw = game.to_json()
    game.apply(Stock())
    before_pass = game.to_json()
    game.apply(Stock())  # pass
    assert texts(game, "s") == ["AS", "2S", "3S"]
    game.apply(Undo())
    assert texts(game, "w") == ["3S", "2S", "AS"] and texts(game, "s") == []
    assert game.to_json() == after_undo_expected(before_pass)
    game.apply(Undo())
    assert texts(game, "w") == ["3S", "2S"] and texts(game, "s") == ["AS"]
    expected = after_undo_expected(before_draw)
    expected["moves"] += 1  # two actions, then two undos
    assert game.to_json() == expected


def test_c6_undo_reverses_a_king_led_run_move():
    """RULES.md C6: a group move and its turn-up are undone as one action."""
    game = eh(t1="2D KS QH JC", down={"t1": 1})
    before = game.to_json()
    game.apply(Move("t1", "t5", 3))
    game.apply(Undo())
    assert game.to_json() == after_undo_expected(before)


def test_c6_undo_limit_100():
    """RULES.md C6/C18: 100 undos in a row are accepted; the 101st is refused (undo_limit)."""
    game = new_game("EH1-N-AAAAAAF")
    assert UNDO_LIMIT == 100
    game.apply(Stock())
    after_first = game.to_json()
    for _ in range(100):  # 58 draws, a pass, 41 draws
        game.apply(Stock())
    assert game.moves == 101
    for _ in range(100):
        game.apply(Undo())
    assert game.moves == 101
    err = refuse(game, Undo(), "undo_limit")
    assert "100" in err.message
    state = game.to_json()
    assert state["piles"] == after_first["piles"]
    assert state["score"] == after_first["score"]


def test_c18_undo_with_nothing_to_undo():
    """RULES.md C18: undo with nothing to undo is refused."""
    game = new_game(CODE)
    refuse(game, Undo(), "no_undo")
    game.apply(Stock())
    game.apply(Undo())
    refuse(game, Undo(), "no_undo")


# --- C13: tap -------------------------------------------------------------------------


def test_c13_tap_sends_the_top_card_to_the_first_accepting_foundation():
    """RULES.md A, C7, C13: tap sends the top card to the first foundation that accepts it."""
    game = eh(t1="AH", t2="3H", f2="AH 2H")
    assert game.apply(Tap("t1")) == Move("t1", "f6")  # f2 is taken: the next heart spot
    assert game.apply(Tap("t2")) == Move("t2", "f2")
    assert texts(game, "f2") == ["AH", "2H", "3H"] and texts(game, "f6") == ["AH"]
    assert game.score == 20


def test_c13_tap_records_the_concrete_move():
    """RULES.md C13 and PRODUCT.md: a tap is recorded as Move(src, spot)."""
    game = eh(t1="AH", t2="9C AH", w="AD")
    assert game.apply(Tap("t1")) == Move("t1", "f2")
    assert game.apply(Tap("t2")) == Move("t2", "f6")
    assert game.apply(Tap("w")) == Move("w", "f3")
    actions = [step["action"] for step in game.to_json()["history"]]
    assert actions == [
        {"type": "move", "from": "t1", "to": "f2", "count": 1},
        {"type": "move", "from": "t2", "to": "f6", "count": 1},
        {"type": "move", "from": "w", "to": "f3", "count": 1},
    ]
    assert game.score == 30 and game.moves == 3


def test_c13_tap_on_stock_or_foundation_refused():
    """RULES.md C13: taps on the stock or on a foundation spot are refused."""
    game = eh(s="AS", f1="AS", t1="2H")
    refuse(game, Tap("s"), "tap_stock")
    refuse(game, DoubleTap("s"), "tap_stock")
    refuse(game, Tap("f1"), "tap_foundation")
    refuse(game, DoubleTap("f1"), "tap_foundation")
    refuse(game, Tap("f2"), "tap_foundation")


def test_c13_tap_finding_nothing_is_refused_and_recorded_nowhere():
    """RULES.md C13: a tap that finds no place is refused and changes nothing."""
    game = eh(t1="5S", t2="6H")
    refuse(game, Tap("t1"), "no_foundation")
    assert game.moves == 0 and game.to_json()["history"] == []


def test_c13_tap_never_places_on_a_column():
    """RULES.md A: a (single) tap only looks at foundations."""
    game = eh(t1="8S", t2="7H")
    refuse(game, Tap("t2"), "no_foundation")


# --- C14 / C8 / C9: double tap ------------------------------------------------------


def test_c14_double_tap_foundation_first():
    """RULES.md C14: a foundation first, even when a column would accept the card."""
    game = eh(t1="AS", t2="2H")
    assert game.apply(DoubleTap("t1")) == Move("t1", "f1")


def test_c14_double_tap_longest_column_counting_face_down_cards():
    """RULES.md C14: then the longest column that accepts the card; length counts every card,
    face-down ones included."""
    game = eh(t1="8C 7H", t2="2C 3C 4C 7D", down={"t2": 3}, t3="7H", t5="6S")
    assert game.apply(DoubleTap("t5")) == Move("t5", "t2")
    assert texts(game, "t2") == ["2C", "3C", "4C", "7D", "6S"]


def test_c14_double_tap_longest_column_not_the_leftmost():
    """RULES.md C14: the longest accepting column wins over a shorter one to its left."""
    game = eh(t1="7H", t2="9S 7D", t3="8H", t4="6C")
    assert game.apply(DoubleTap("t4")) == Move("t4", "t2")


def test_c8_double_tap_ties_go_to_the_leftmost():
    """RULES.md C8: ties between longest columns go to the leftmost."""
    game = eh(t2="KC 7D", t3="KC 7H", t4="3D 7H", t6="6S")
    assert game.apply(DoubleTap("t6")) == Move("t6", "t2")


def test_c14_double_tap_king_to_leftmost_empty_column():
    """RULES.md A and C14: then the leftmost empty column for a king."""
    game = eh(t1="3D KS", down={"t1": 1}, t2="5C", t4="9H")
    assert game.apply(DoubleTap("t1")) == Move("t1", "t3")
    assert texts(game, "t3") == ["KS"] and game.down["t1"] == 0
    assert game.score == 5


def test_c14_double_tap_king_from_waste_to_leftmost_empty_column():
    """RULES.md C14: a waste king goes to the leftmost empty column (+5 waste to column)."""
    game = eh(w="KH", t1="5C", t2="5C")
    assert game.apply(DoubleTap("w")) == Move("w", "t3")
    assert game.score == 5


def test_c14_double_tap_never_moves_a_whole_column_into_an_empty_one():
    """RULES.md C14: a king alone that is its whole column is never moved to an empty column;
    refused if nothing else is found."""
    game = eh(t1="KS", t3="5C")
    refuse(game, DoubleTap("t1"), "no_place")
    game = eh(t1="KS", f1=suit_up_to("S", "Q"))
    assert game.apply(DoubleTap("t1")) == Move("t1", "f1")


def test_c14_double_tap_nothing_found_is_refused():
    """RULES.md C13/C14: a double tap that finds no place is refused and recorded nowhere."""
    game = eh(t1="5S", t2="6S", t3="4H")
    err = refuse(game, DoubleTap("t1"), "no_place")
    assert "5S" in err.message
    assert game.moves == 0


def test_c9_double_tap_on_a_king_heading_a_run_moves_the_run():
    """RULES.md C9: double tap on a king heading a run (count = run length) moves the whole
    run to the leftmost empty column, never a foundation (even if one takes the top card)."""
    game = eh(t1="5D KS QH JC", down={"t1": 1}, t2="8D", t4="4S", f4=suit_up_to("C", "T"))
    assert game.apply(DoubleTap("t1", 3)) == Move("t1", "t3", 3)
    assert texts(game, "t3") == ["KS", "QH", "JC"]
    assert texts(game, "t1") == ["5D"] and game.down["t1"] == 0
    assert game.score == 5


def test_c9_double_tap_on_a_covered_non_king_is_refused():
    """RULES.md C9: a tap on any other covered card is refused."""
    game = eh(t1="5D KS QH JC", down={"t1": 1}, t2="KH")
    refuse(game, DoubleTap("t1", 2))
    refuse(game, Tap("t1", 2))
    refuse(game, Tap("t1", 3))


def test_c9_double_tap_on_a_king_led_run_that_is_the_whole_column():
    """RULES.md C14: moving a whole column into an empty column changes nothing: refused."""
    game = eh(t1="KS QH JC", t2="8D")
    refuse(game, DoubleTap("t1", 3), "no_place")


# --- C19: after the win ----------------------------------------------------------------


def almost_won():
    """103 cards on the foundations and the last king of spades on t1."""
    spots = {f"f{i}": suit_up_to(s) for i, s in enumerate("SHDCSHDC", start=1)}
    spots["f1"] = suit_up_to("S", "Q")
    return eh(t1="KS", **spots)


def test_a_game_won_when_all_104_cards_are_on_foundations():
    """RULES.md A: won when all 104 cards are on the foundations."""
    game = almost_won()
    assert game.won is False
    assert game.apply(Move("t1", "f")) == Move("t1", "f1")
    assert game.won is True
    assert game.view()["won"] is True
    assert game.score == 10


@pytest.mark.parametrize(
    "action",
    [Undo(), Stock(), Move("f1", "t1"), Move("f5", "t2"), Tap("f1"), DoubleTap("f2")],
    ids=repr,
)
def test_c19_after_the_win_every_action_is_refused(action):
    """RULES.md C19: after the win every action, undo included, is refused."""
    game = almost_won()
    game.apply(Move("t1", "f"))
    refuse(game, action, "game_over")
    assert list(game.legal_moves) == []
    assert game.targets("f1") == []


# --- C12 / C20: refusals ---------------------------------------------------------------

REFUSALS = [
    ({"t1": "7H", "t2": "8H"}, Move("t1", "t2"), "wrong_build"),
    ({"t1": "QH"}, Move("t1", "t2"), "kings_only"),
    ({"t1": "8S 7H 6C", "t2": "9H"}, Move("t1", "t2", 3), "one_card_at_a_time"),
    ({"t1": "KS QS"}, Move("t1", "t2", 2), "not_a_run"),
    ({"t1": "KS QH", "down": {"t1": 1}}, Move("t1", "t2", 2), "face_down"),
    ({"t1": "AS"}, Move("t1", "f2"), "foundation_suit"),
    ({"t1": "2S"}, Move("t1", "f1"), "foundation_order"),
    ({"t1": "2S"}, Move("t1", "f"), "no_foundation"),
    ({"s": "AS"}, Move("s", "t1"), "stock_source"),
    ({"t1": "KS"}, Move("t1", "w"), "not_destination"),
    ({"w": "KS QH"}, Move("w", "t1", 2), "waste_one_card"),
    ({"t1": "5S"}, Stock(), "stock_empty"),
    ({"f1": "AS"}, Move("f1", "f"), "foundation_to_foundation"),
    ({"t1": "5S"}, Undo(), "no_undo"),
    ({"s": "AS"}, Tap("s"), "tap_stock"),
    ({"f1": "AS"}, Tap("f1"), "tap_foundation"),
    ({"t1": "5S"}, Tap("t1"), "no_foundation"),
    ({"t1": "5S"}, DoubleTap("t1"), "no_place"),
    ({"t1": "5S"}, Move("t1", "t1"), None),
    ({"t1": "5S"}, Move("t2", "f"), None),
]


@pytest.mark.parametrize(("piles", "action", "code"), REFUSALS, ids=lambda x: repr(x)[:40])
def test_c12_every_refusal_has_a_code_and_one_sentence_and_changes_nothing(piles, action, code):
    """RULES.md C12: a machine-readable code and a one-sentence explanation; nothing changes."""
    game = eh(**piles)
    err = refuse(game, action, code)
    assert isinstance(err, ValueError) and isinstance(err, EngineError)
    message = err.message.strip()
    assert message[0].isupper() and message.endswith(".")
    assert ". " not in message, f"more than one sentence: {message!r}"
    assert err.to_json() == {"code": err.code, "message": err.message}
    assert action not in game.legal_moves


def test_c20_errors_are_value_errors_and_distinct():
    """errors.py / RULES.md C20: IllegalActionError and MalformedError are both ValueError,
    and malformed input is not reported as an illegal move (nor the reverse)."""
    assert issubclass(IllegalActionError, ValueError)
    assert issubclass(MalformedError, ValueError)
    assert not issubclass(IllegalActionError, MalformedError)
    assert not issubclass(MalformedError, IllegalActionError)
    game = eh(t1="5S")
    before = game.to_json()
    for bad in (Move("t10", "t1"), Move("t1", "c1"), Move("f", "t1"), Tap("x")):
        with pytest.raises(MalformedError) as info:
            game.apply(bad)
        assert info.value.code and info.value.message
    for data in (
        {"type": "move", "from": "t1", "to": "t2", "count": 0},
        {"type": "move", "from": "t1", "to": "t2", "count": True},
        {"type": "move", "from": "f", "to": "t2"},
        {"type": "stock", "extra": 1},
    ):
        with pytest.raises(MalformedError):
            game.apply_json(data)
    with pytest.raises(IllegalActionError):
        game.apply(Move("t1", "t2"))
    assert game.to_json() == before


# --- legal targets and legal moves -----------------------------------------------------


def test_legal_targets_and_moves():
    """game.targets and game.legal_moves list exactly the legal concrete actions."""
    game = eh(t1="8S", t2="7H", w="AS", s="2C", t3="9D KC QD", down={"t3": 1})
    assert game.targets("t2") == ["t1"]
    assert game.targets("w") == ["f1", "f5"]
    assert game.targets("t1") == []
    assert set(game.targets("t3", 2)) == {f"t{i}" for i in range(4, 10)}
    assert game.targets("t3", 3) == []
    assert set(game.legal_moves) == {
        Stock(),
        Move("t2", "t1"),
        Move("w", "f1"),
        Move("w", "f5"),
        *(Move("t3", f"t{i}", 2) for i in range(4, 10)),
    }
    assert game.legal_moves.count() == 10
    assert Tap("w") in game.legal_moves
    assert DoubleTap("w") in game.legal_moves
    assert Move("w", "f") in game.legal_moves
    assert Move("t1", "f") not in game.legal_moves
    assert Tap("t1") not in game.legal_moves
    assert Move("t2", "t4") not in game.legal_moves
    assert Undo() not in game.legal_moves


def test_legal_moves_on_a_real_deal_are_all_accepted():
    """Every move legal_moves lists is accepted by apply (and targets agree with it)."""
    game = new_game("EH1-N-AAAAAAF")
    moves = list(game.legal_moves)
    assert Stock() in moves
    for move in moves:
        copy = game.copy()
        copy.apply(move)
        assert copy.moves == 1
        if isinstance(move, Move):
            assert move.target in game.targets(move.source, move.count)


def test_c12_a_refusal_never_names_a_face_down_card():
    """PRODUCT.md anti-cheat: no face-down card in any message, refusals included."""
    game = position("EH1-N-AAAAAAB", t1="QS 6H 5C", down={"t1": 2})
    for action in (DoubleTap("t1", 3), DoubleTap("t1", 2), Move("t1", "t2", 3), Tap("t1", 2)):
        with pytest.raises(IllegalActionError) as info:
            game.apply(action)
        assert "6H" not in info.value.message and "QS" not in info.value.message
