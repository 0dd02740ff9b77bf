"""Deals are a pure function of the code (RULES.md C1), pinned by test vectors,
and laid out as Parts A and B say."""

import json
from collections import Counter
from pathlib import Path

import pytest

from games.engine import CARDS, GameCode, new_game
from games.engine.shuffle import SplitMix64, deal_seed, shuffled_ids

VECTORS = json.loads((Path(__file__).parent / "vectors" / "deals.json").read_text())


def test_c1_splitmix64_matches_the_reference_sequence():
    # Reference output of Vigna's splitmix64.c for seed 1234567.
    rng = SplitMix64(1234567)
    assert [rng.next() for _ in range(5)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
        4593380528125082431,
        16408922859458223821,
    ]


def test_c1_seed_is_sha256_of_game_and_number():
    # First 8 bytes of sha256(b"SH1-314"), big-endian.
    seed = deal_seed(GameCode.parse("SH1-C4-AAAAAJ2"))
    assert seed == 0x024834C1B8B44175
    assert seed == deal_seed(GameCode.parse("SH1-C1-AAAAAJ2"))  # same cards, fewer cells
    assert seed != deal_seed(GameCode.parse("EH1-N-AAAAAJ2"))


@pytest.mark.parametrize("code", sorted(VECTORS))
def test_c1_deal_vectors(code):
    """The complete layout of each pinned code, cards and physical identities."""
    state = new_game(code).to_json()
    assert state["piles"] == VECTORS[code]["piles"]
    assert state["down"] == VECTORS[code]["down"]
    assert state["ids"] == VECTORS[code]["ids"]


def test_c1_shuffle_is_a_permutation_and_differs_between_deals():
    a = shuffled_ids(GameCode.parse("EH1-N-AAAAAAB"), 104)
    b = shuffled_ids(GameCode.parse("EH1-N-AAAAAAC"), 104)
    assert sorted(a) == list(range(104)) and a != b


def test_a_setup_easy_harp():
    game = new_game("EH1-N-AAAAAAF")
    assert [len(game.piles[f"t{i}"]) for i in range(1, 10)] == list(range(1, 10))
    assert [game.down[f"t{i}"] for i in range(1, 10)] == list(range(0, 9))
    assert sum(game.down.values()) == 36
    assert len(game.piles["s"]) == 59 and game.piles["w"] == []
    assert all(game.piles[f"f{i}"] == [] for i in range(1, 9))
    every = Counter(c.text for pile in game.piles.values() for c in pile)
    assert len(every) == 52 and set(every.values()) == {2}
    assert {c.id for pile in game.piles.values() for c in pile} == set(range(104))


def test_a_deal_order_is_column_by_column_then_stock_drawn_in_shuffle_order():
    code = GameCode.parse("EH1-N-AAAAAAF")
    order = [CARDS[i] for i in shuffled_ids(code, 104)]
    game = new_game(code)
    assert game.piles["t1"] == order[0:1]
    assert game.piles["t9"] == order[36:45]
    assert game.piles["s"][-1] is order[45]  # drawn first
    assert game.piles["s"] == order[45:][::-1]


@pytest.mark.parametrize(("variant", "cells"), [("C4", 4), ("C2", 2), ("C1", 1)])
def test_b_setup_seahaven(variant, cells):
    code = GameCode.parse(f"SH1-{variant}-AAAAAJ2")
    order = [CARDS[i] for i in shuffled_ids(code, 52)]
    game = new_game(code)
    assert list(game.piles) == [
        *(f"t{i}" for i in range(1, 11)),
        *(f"c{i}" for i in range(1, cells + 1)),
        "f1",
        "f2",
        "f3",
        "f4",
    ]
    assert list(game.down) == [f"t{i}" for i in range(1, 11)]
    assert set(game.down.values()) == {0}
    for i in range(10):
        expected = order[5 * i : 5 * i + 5]
        if i == 1 and cells == 1:
            expected = [*expected, order[51]]  # the second leftover goes onto column 2
        assert game.piles[f"t{i + 1}"] == expected
    assert game.piles["c1"] == [order[50]]
    if cells >= 2:
        assert game.piles["c2"] == [order[51]]
        assert all(game.piles[f"c{i}"] == [] for i in range(3, cells + 1))
    assert {c.id for pile in game.piles.values() for c in pile} == set(range(52))


def test_c21_views_list_exactly_the_games_piles():
    eh = new_game("EH1-N-AAAAAAB").view()
    assert list(eh["piles"]) == [*(f"t{i}" for i in range(1, 10)), "s", "w"] + [
        f"f{i}" for i in range(1, 9)
    ]
    assert list(eh["down"]) == [f"t{i}" for i in range(1, 10)]
