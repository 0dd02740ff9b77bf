"""Deals are a pure function of the code (RULES.md C1, C2b), pinned by test
vectors, and laid out as Parts A and B say."""

import hashlib
import json
import struct
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import ALL_VARIANTS, CARDS, MAX_KEY, GameCode, new_game
from games.engine.shuffle import (
    Shake256Words,
    SplitMix64,
    deal_seed,
    deal_stream,
    key_message,
    shuffled_ids,
)

HERE = Path(__file__).parent / "vectors"
NUMBERED_TEXT = (HERE / "deals.json").read_bytes()
VECTORS = json.loads(NUMBERED_TEXT)
LONG_VECTORS = json.loads((HERE / "long_deals.json").read_text())
"""Long-code vectors (C2b), generated once with ``new_game(code).to_json()`` when
long codes arrived and pinned. Keys: 1, 2^128 - 1, and the first 16 bytes of
SHA-256 of "long vector 1", "long vector 2" and "long vector 3"."""
KEY = "CNYUZSFWIH5KXM5EKJKWKKTRPX"


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


@pytest.mark.parametrize("code", sorted(VECTORS) + sorted(LONG_VECTORS))
def test_c1_deal_vectors(code):
    """The complete layout of each pinned code, cards and physical identities."""
    pinned = VECTORS.get(code) or LONG_VECTORS[code]
    state = new_game(code).to_json()
    assert state["code"] == code
    assert state["piles"] == pinned["piles"]
    assert state["down"] == pinned["down"]
    assert state["ids"] == pinned["ids"]


def test_c2b_numbered_vectors_are_the_ones_pinned_before_long_codes():
    """C2b: numbered deals keep their exact layouts. The vectors above prove it only
    while deals.json itself is untouched, so its bytes are pinned too: regenerating
    it to make a test pass would otherwise go unnoticed."""
    assert hashlib.sha256(NUMBERED_TEXT).hexdigest() == (
        "4031031563327e296dc577243999d81f8f2483eb003d0032420eb95b648fe9c2"
    )
    assert len(VECTORS) == 10 and not any(len(code) > 14 for code in VECTORS)


def test_c2b_long_vectors_cover_both_games_and_the_key_range():
    codes = [GameCode.parse(code) for code in LONG_VECTORS]
    assert all(code.long for code in codes)
    assert {code.variant_id for code in codes} == set(ALL_VARIANTS)
    assert {1, MAX_KEY} <= {code.number for code in codes}


def reference_long_order(game: str, key: str, n_cards: int) -> list[int]:
    """shuffle.py's documented long-code algorithm, written out again from its text."""
    words = struct.unpack(">256Q", hashlib.shake_256(f"{game}-{key}".encode()).digest(2048))
    draws = iter(words)
    ids = list(range(n_cards))
    for i in range(n_cards - 1, 0, -1):
        n = i + 1
        x = next(draws)
        while x >= 2**64 - 2**64 % n:
            x = next(draws)
        j = x % n
        ids[i], ids[j] = ids[j], ids[i]
    return ids


@pytest.mark.parametrize(("game", "n_cards"), [("EH1", 104), ("SH1", 52)])
def test_c2b_long_deals_follow_the_documented_algorithm(game, n_cards):
    """C2b: SHAKE-256 of "{GAME}-{KEY}", 64-bit big-endian words, rejection, Fisher–Yates."""
    variant = "N" if game == "EH1" else "C4"
    for key in (KEY, "AAAAAAAAAAAAAAAAAAAAAAAAAB", "H7777777777777777777777777"):
        code = GameCode.parse(f"{game}-{variant}-{key}")
        assert key_message(code) == f"{game}-{key}".encode()
        assert shuffled_ids(code, n_cards) == reference_long_order(game, key, n_cards)


def test_c2b_the_key_stream_goes_on_past_its_first_block():
    """A refill (after rejections) continues SHAKE-256's output; it does not restart it."""
    message = b"SH1-" + KEY.encode()
    stream = Shake256Words(message, ahead=3)
    drawn = [stream.next() for _ in range(20)]
    assert drawn == list(struct.unpack(">20Q", hashlib.shake_256(message).digest(160)))


def test_c2b_each_kind_has_its_own_stream():
    long = GameCode.parse(f"SH1-C4-{KEY}")
    numbered = GameCode.parse("SH1-C4-AAAAAJ2")
    assert isinstance(deal_stream(long, 52), Shake256Words)
    assert isinstance(deal_stream(numbered, 52), SplitMix64)
    with pytest.raises(ValueError, match="long code"):
        deal_seed(long)
    with pytest.raises(ValueError, match="numbered deal"):
        key_message(numbered)


@pytest.mark.parametrize(("variant", "n_cards"), [("EH1-N", 104), ("SH1-C4", 52)])
def test_c2b_every_bit_of_the_key_changes_the_deal(variant, n_cards):
    """Flipping any one of the 128 bits, the lowest and highest included, deals other cards."""
    key = GameCode.parse(f"{variant}-{KEY}").number
    game, letter = variant.split("-")
    base = shuffled_ids(GameCode(game, letter, key, long=True), n_cards)
    for bit in range(128):
        flipped = GameCode(game, letter, key ^ (1 << bit), long=True)
        assert shuffled_ids(flipped, n_cards) != base, bit
    # Key 1 cannot lose its lowest bit (key 0 is no key); its highest can be set.
    one = shuffled_ids(GameCode(game, letter, 1, long=True), n_cards)
    assert shuffled_ids(GameCode(game, letter, 1 | 1 << 127, long=True), n_cards) != one


@given(key=st.integers(1, MAX_KEY), bit=st.integers(0, 127), game=st.sampled_from(["EH1", "SH1"]))
def test_c2b_any_one_bit_changes_any_deal(key, bit, game):
    flipped = key ^ (1 << bit)
    if flipped:
        letter, n_cards = ("N", 104) if game == "EH1" else ("C1", 52)
        before = shuffled_ids(GameCode(game, letter, key, long=True), n_cards)
        after = shuffled_ids(GameCode(game, letter, flipped, long=True), n_cards)
        assert before != after


@pytest.mark.parametrize(("variant", "n_cards"), [("EH1-N", 104), ("SH1-C4", 52)])
def test_c2b_key_k_is_not_deal_number_k(variant, n_cards):
    game, letter = variant.split("-")
    for k in (1, 5, 314, 999_999):
        numbered = shuffled_ids(GameCode(game, letter, k), n_cards)
        long = shuffled_ids(GameCode(game, letter, k, long=True), n_cards)
        assert sorted(long) == list(range(n_cards)) and long != numbered


def test_c2b_the_variant_is_not_in_a_long_deal():
    """C2b like C1: SH1-C4-K, SH1-C2-K and SH1-C1-K are the same cards with fewer cells."""
    code = GameCode.parse(f"SH1-C4-{KEY}")
    orders = {tuple(shuffled_ids(same, 52)) for same in code.same_cards()}
    assert len(orders) == 1
    eh = GameCode.parse(f"EH1-N-{KEY}")
    assert shuffled_ids(eh, 52) != shuffled_ids(code, 52)  # the game is in it


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
