"""Auto-finish (issue 15, deliverable 5): ``Game.finishing_moves()`` and the
player's view's ``finish``.

When only foundation moves remain — Easy Harp: no face-down card, stock and
waste empty; Seahaven: every card left can go up in order — the engine lists
the moves that take every card to the foundations, each an ordinary move that
:meth:`Game.apply` accepts and records unchanged; otherwise it lists nothing.
Positions are built by hand (every card not named is put on the foundations,
so the listed moves can really win), then checked against an independent
oracle on random positions, and along real winning lines.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from games.engine import (
    CARDS,
    Game,
    Move,
    Stock,
    Undo,
    encode_deal,
    new_game,
)
from tests.support.positions import position
from tests.support.search import find_win

SH = "SH1-C4-AAAAAAB"
EH = "EH1-N-AAAAAAB"
RANKS = "A23456789TJQK"


def finishing_position(code: str, down: dict[str, int] | None = None, **piles: str) -> Game:
    """:func:`position` with every card not named put on the foundations, each
    spot built up from the ace (the named cards are all that is left to play)."""
    game = position(code, down, **piles)
    used = {c.id for pile in game.piles.values() for c in pile}
    rest = [c for c in CARDS[: game.n_cards] if c.id not in used]
    for card in sorted(rest, key=lambda c: c.rank):
        spot = game.foundation_for(card)
        assert spot is not None, f"{card.text} cannot lie on a foundation below the named cards"
        game.piles[spot].append(card)
    assert sum(len(p) for p in game.piles.values()) == game.n_cards
    return game


def plays_to_a_win(game: Game, moves: list[Move]) -> Game:
    """Apply ``moves`` to a copy, each one accepted and recorded as it is; return it."""
    board = game.copy()
    for index, move in enumerate(moves):
        assert not board.won, f"won before the end, at move {index}"
        assert move.target.startswith("f") and move.count == 1, move
        assert board.apply(move) == move  # already resolved: a concrete foundation spot
    assert board.won
    return board


def assert_finish(game: Game) -> list[Move]:
    """The position lists a finish, its view carries it as action JSON, and it wins."""
    moves = game.finishing_moves()
    assert moves, "no finish listed"
    assert game.view()["finish"] == [m.to_json() for m in moves]
    left = game.n_cards - sum(len(game.piles[f]) for f in game.foundations)
    assert len(moves) == left  # one move per card left, nothing else
    plays_to_a_win(game, moves)
    # The list depends on the position alone: after its first move, the rest.
    after = game.copy()
    after.apply(moves[0])
    assert after.finishing_moves() == moves[1:]
    return moves


def assert_no_finish(game: Game) -> None:
    assert game.finishing_moves() == []
    assert game.view()["finish"] == []


# --- Seahaven: every card left can go up in order ---------------------------------------


def test_seahaven_lists_the_finish_when_every_card_can_go_up_in_order() -> None:
    game = finishing_position(SH, t1="KH QH JH", t2="KS", t3="KD QD JD TD", t5="KC QC", c1="QS")
    moves = assert_finish(game)
    board = plays_to_a_win(game, moves)
    assert board.score == game.score + 10 * len(moves)  # ordinary foundation moves (C4)
    assert board.moves == game.moves + len(moves)


def test_seahaven_no_finish_when_a_king_covers_its_queen() -> None:
    """The same cards, but KC lies on QC: the king cannot go up before its queen."""
    game = finishing_position(SH, t1="KH QH JH", t2="KS", t3="KD QD JD TD", t5="QC KC", c1="QS")
    assert game.is_legal(Move("t1", "f"))  # foundation moves there are, just not enough
    assert_no_finish(game)


def test_seahaven_no_finish_when_one_card_blocks_its_own_suit() -> None:
    """Some cards can go up, but 5H lies under KH: the hearts never finish."""
    game = finishing_position(SH, t1="5H KH", t2="QH JH TH 9H 8H 7H 6H", t3="KS QS", c1="JS")
    assert game.is_legal(Move("c1", "f"))  # the spades could start going up
    assert_no_finish(game)


def test_seahaven_no_finish_when_a_cell_move_would_be_needed() -> None:
    """Winnable, but only by moving a card elsewhere first: not "only foundation moves"."""
    game = finishing_position(SH, t1="QD KD", t2="KC")
    # KD into a cell, then QD, KD, KC up: a win, but not by foundation moves alone.
    assert game.is_legal(Move("t1", "c2"))
    assert_no_finish(game)


def test_seahaven_group_in_a_column_goes_up_one_card_at_a_time() -> None:
    game = finishing_position(SH, t1="KS QS JS TS 9S", c4="KH")
    # The lowest card first; KS and KH tie, and t1 comes before c4.
    assert assert_finish(game) == [Move("t1", "f1")] * 5 + [Move("c4", "f2")]


def test_seahaven_cards_go_up_rank_by_rank_across_the_piles() -> None:
    """The lowest card that can go up goes first, the leftmost pile on a tie."""
    game = finishing_position(SH, t1="KS QS JS", t2="KH QH JH", c1="KD", c2="KC")
    moves = assert_finish(game)
    assert moves == [Move("t1", "f1"), Move("t2", "f2")] * 3 + [
        Move("c1", "f3"),
        Move("c2", "f4"),
    ]


def test_no_finish_once_won_and_none_for_a_fresh_deal() -> None:
    assert_no_finish(new_game(SH))
    assert_no_finish(new_game(EH))
    game = finishing_position(SH, c1="KS")
    game.apply(Move("c1", "f"))
    assert game.won
    assert_no_finish(game)


def test_the_full_view_has_no_finish_and_the_stored_game_none_either() -> None:
    game = finishing_position(SH, c1="KS")
    assert game.view()["finish"] == [Move("c1", "f1").to_json()]
    assert "finish" not in game.view(full=True)
    assert "finish" not in game.to_json()


def test_listing_the_finish_changes_nothing_and_keeps_the_move_list() -> None:
    """It plays on a copy: the game, its undo history and the move list made once per
    position (``generate_moves``) stay as they were."""
    game = finishing_position(SH, t1="KH QH JH", t2="KS", c1="QS")
    listed = list(game.legal_moves)
    before = game.to_json()
    moves = game.finishing_moves()
    assert moves
    assert game.to_json() == before
    assert list(game.legal_moves) == listed
    # After a real move, the new position gets its own move list and finish.
    game.apply(moves[0])
    assert game.finishing_moves() == game.copy().finishing_moves()
    assert list(game.legal_moves) != listed
    game.apply(Undo())
    assert game.finishing_moves() == moves


def test_a_take_back_is_no_finishing_move_and_an_undo_gives_the_finish_back() -> None:
    game = finishing_position(SH, t1="KH", c1="KS")
    before = game.finishing_moves()
    game.apply(Move("f1", "c2"))  # take back the queen of spades into a cell
    moves = assert_finish(game)
    assert all(m.source[0] != "f" for m in moves)
    game.apply(Undo())
    assert game.finishing_moves() == before


# --- Easy Harp: no face-down card, stock and waste empty ---------------------------------


EH_RUNS = {
    "t1": "KS QH JC",
    "t2": "KD QS JH",
    "t3": "KH QC",
    "t4": "KC QD",
    "t5": "KS QD JC",
    "t6": "KH QS",
    "t7": "KD QC",
    "t8": "KC QH",
}
"""Alternating runs: both queens and kings of every suit, one jack of hearts, both of
clubs; every other card is home (the second heart spot holds up to the jack)."""


def eh_position(down: dict[str, int] | None = None, **extra: str) -> Game:
    return finishing_position(EH, down, **(EH_RUNS | extra))


def test_easy_harp_lists_the_finish_when_nothing_is_hidden_or_left_to_draw() -> None:
    game = eh_position()
    moves = assert_finish(game)
    board = plays_to_a_win(game, moves)
    # Ordinary foundation moves: +10 each, the first time each card goes up (C3).
    assert board.score == game.score + 10 * len(moves)


def test_easy_harp_twins_go_to_both_spots_of_their_suit() -> None:
    game = finishing_position(EH, t1="KS QH", t2="QH", t3="KS KH", t4="KH")
    moves = assert_finish(game)
    assert {m.target for m in moves} >= {"f2", "f6"}  # both heart spots used


def test_easy_harp_never_lists_a_finish_with_a_face_down_card() -> None:
    """A face-down card: the finish would tell which card it is (and its order)."""
    game = eh_position(down={"t2": 1})
    assert game.view()["piles"]["t2"][0] is None
    assert game.is_legal(Move("t1", "f"))
    assert_no_finish(game)
    assert_finish(eh_position())  # face up, the same cards finish


@pytest.mark.parametrize("pile", ["s", "w"])
def test_easy_harp_no_finish_while_a_card_is_left_to_draw(pile: str) -> None:
    """A card in the stock (hidden) or on the waste: the stock action is no
    foundation move, so nothing is listed — even when the waste card could go up."""
    game = finishing_position(EH, **(EH_RUNS | {"t5": "KS QD", pile: "JC"}))
    assert Stock() in list(game.legal_moves)
    assert game.is_legal(Move("t1", "f"))
    if pile == "w":
        assert game.is_legal(Move("w", "f"))
    else:
        assert game.view()["piles"]["s"] == [None]
    assert_no_finish(game)


# --- an independent oracle, random positions ------------------------------------------


def oracle_finishes(game: Game) -> bool:
    """Seahaven (one deck): only foundation moves win iff no card must go up both
    before and after another — every card waits for the cards above it and for its
    suit's next lower card — i.e. that "waits for" relation has no cycle."""
    where: dict[str, tuple[str, int]] = {}
    for pid in (*game.columns, *game.cells):
        for i, card in enumerate(game.piles[pid]):
            where[card.text] = (pid, i)
    waits: dict[str, list[str]] = {}
    for text, (pid, i) in where.items():
        above = [c.text for c in game.piles[pid][i + 1 :]]
        rank, suit = RANKS.index(text[0]) + 1, text[1]
        lower = f"{RANKS[rank - 2]}{suit}" if rank > 1 else None
        waits[text] = above + ([lower] if lower in where else [])
    state: dict[str, int] = {}

    def cyclic(text: str) -> bool:
        state[text] = 1
        for other in waits[text]:
            if state.get(other) == 1 or (other not in state and cyclic(other)):
                return True
        state[text] = 2
        return False

    return not any(text not in state and cyclic(text) for text in where)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    variant=st.sampled_from(["SH1-C4", "SH1-C2", "SH1-C1"]),
    heights=st.lists(st.integers(0, 13), min_size=4, max_size=4),
    seed=st.integers(0, 2**32),
)
def test_seahaven_random_positions_agree_with_the_oracle(
    variant: str, heights: list[int], seed: int
) -> None:
    """Random foundations; the cards left dealt at random into columns and free cells."""
    rng = random.Random(seed)
    game = new_game(f"{variant}-AAAAAAB")
    cards = list(CARDS[:52])
    for pid in game.piles:
        game.piles[pid] = []
    for column in game.columns:
        game.down[column] = 0
    for spot, height in zip(game.foundations, heights, strict=True):
        game.piles[spot] = [c for c in cards if c.suit is game.spot_suit[spot] and c.rank <= height]
    rest = [c for c in cards if c.rank > heights[game.foundation_suits.index(c.suit)]]
    rng.shuffle(rest)
    cells = rng.sample(game.cells, rng.randint(0, len(game.cells)))
    for cell in cells:
        if rest:
            game.piles[cell] = [rest.pop()]
    for card in rest:
        game.piles[rng.choice(game.columns)].append(card)
    moves = game.finishing_moves()
    left = 52 - sum(heights)
    assert bool(moves) == (left > 0 and oracle_finishes(game)), game.view()["piles"]
    if moves:
        plays_to_a_win(game, moves)


# --- real games ------------------------------------------------------------------------


EH_FINISHING = "EH1-N-" + encode_deal(4)
"""An Easy Harp deal whose winning line (the solver's) reaches the finishing state
30 moves before its end."""


@pytest.fixture(scope="module")
def eh_line() -> list[Move | Stock]:
    line = find_win(EH_FINISHING)
    assert line is not None
    return line


def test_easy_harp_along_a_winning_line_finish_exactly_when_nothing_is_hidden(
    eh_line: list[Move | Stock],
) -> None:
    """At every position of a real game: a finish is listed exactly when no card is
    face down and the stock and waste are empty, and then it wins."""
    game = new_game(EH_FINISHING)
    seen = 0
    for action in eh_line:
        hidden = bool(game.piles["s"] or game.piles["w"] or any(game.down.values()))
        moves = game.finishing_moves()
        assert bool(moves) == (not hidden and not game.won)
        if moves:
            seen += 1
            plays_to_a_win(game, moves)
        game.apply(action)
    assert game.won and seen >= 10


def test_easy_harp_random_walks_from_the_finishing_state_always_finish(
    eh_line: list[Move | Stock],
) -> None:
    """From the first finishing position, random legal moves (between columns,
    take-backs from the foundations, undos) keep every column a run: the finish is
    listed at every step and always wins."""
    game = new_game(EH_FINISHING)
    for action in eh_line:
        if game.finishing_moves():
            break
        game.apply(action)
    start = game.depth
    rng = random.Random(15)
    walked = 0
    for _ in range(300):
        assert_finish(game)
        choices = [m for m in game.legal_moves if m != Stock()]
        if game.depth > start:
            choices.append(Undo())  # never back beyond the finishing state
        game.apply(rng.choice(choices))
        walked += 1
        if game.won:
            game.apply(Undo())
    assert walked == 300
