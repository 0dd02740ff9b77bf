"""Game codes (RULES.md C2, C2b) and card notation (PRODUCT.md, Cards and piles)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from games.engine import (
    ALL_VARIANTS,
    CARDS,
    KEY_DIGITS,
    MAX_DEAL,
    MAX_KEY,
    GameCode,
    MalformedError,
    Suit,
    decode_deal,
    decode_key,
    encode_deal,
    encode_key,
    parse_card,
    parse_variant,
)
from tests.support.toy_bakers import TOY_VARIANTS

KEY = "CNYUZSFWIH5KXM5EKJKWKKTRPX"


@pytest.mark.parametrize(("text", "number"), [("AAAAAAF", 5), ("AAAAAJ2", 314), ("AAAAAAB", 1)])
def test_c2_deal_digits(text, number):
    assert decode_deal(text) == number
    assert encode_deal(number) == text


def test_c2_round_trip_over_the_whole_range():
    for number in (1, 31, 32, 1023, 1024, 65_535, 999_998, 999_999):
        assert decode_deal(encode_deal(number)) == number


def test_c2_parse_ignores_case_and_surrounding_spaces():
    code = GameCode.parse("  sh1-c4-aaaaaj2 \n")
    assert code == GameCode("SH1", "C4", 314)
    assert str(code) == "SH1-C4-AAAAAJ2"
    assert code.variant_id == "SH1-C4"
    assert eval(repr(code)) == code


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("XX1-N-AAAAAAB", "Unknown game"),
        ("EH2-N-AAAAAAB", "Unknown game"),
        ("EH1-C4-AAAAAAB", "no variant"),
        ("SH1-C3-AAAAAAB", "no variant"),
        ("SH1-C4-AAAAAB", "7 characters"),
        ("SH1-C4-AAAAAAAB", "7 characters"),
        ("SH1-C4-AAAAAA1", "not a deal digit"),
        ("SH1-C4-AAAAAA8", "not a deal digit"),
        ("SH1-C4-AAAAAAA", "0"),  # deal 0 is outside 1..999 999
        ("SH1-C4-AAA6QSA", "999,999"),  # 1 000 000
        ("SH1-C4", "GAME-VARIANT-DEAL"),
        ("SH1--C4-AAAAAAB", "GAME-VARIANT-DEAL"),
        ("", "GAME-VARIANT-DEAL"),
    ],
)
def test_c2_bad_codes_say_what_is_wrong(text, says):
    with pytest.raises(MalformedError) as info:
        GameCode.parse(text)
    assert info.value.code == "bad_code"
    assert says in info.value.message


@pytest.mark.parametrize("value", [None, 314, ["SH1-C4-AAAAAJ2"], b"SH1-C4-AAAAAJ2"])
def test_c2_a_code_must_be_a_string(value):
    with pytest.raises(MalformedError):
        GameCode.parse(value)


def test_c2_encode_refuses_numbers_out_of_range():
    for number in (0, -1, 1_000_000):
        with pytest.raises(MalformedError):
            encode_deal(number)


@pytest.mark.parametrize(
    ("text", "key"),
    [
        ("AAAAAAAAAAAAAAAAAAAAAAAAAB", 1),
        ("AAAAAAAAAAAAAAAAAAAAAAAAAF", 5),
        ("AAAAAAAAAAAAAAAAAAAAAAAAJ2", 314),
        ("AAAAAAAAAAAAAAAAAAAAAAAAB7", 63),
        ("AAAAAAAAAAAAAAAAAAAAAAABAA", 1024),
        ("BAAAAAAAAAAAAAAAAAAAAAAAAA", 2**125),
        ("EAAAAAAAAAAAAAAAAAAAAAAAAA", 2**127),
        ("H7777777777777777777777777", 2**128 - 1),
    ],
)
def test_c2b_key_digits(text, key):
    assert decode_key(text) == key
    assert encode_key(key) == text
    assert len(text) == KEY_DIGITS


@given(st.integers(1, MAX_KEY), st.sampled_from(ALL_VARIANTS + TOY_VARIANTS))
def test_c2b_long_codes_round_trip(key, variant):
    code = GameCode(*variant.split("-"), key, long=True)
    text = str(code)
    assert len(text) == len(variant) + 1 + KEY_DIGITS
    assert text == f"{variant}-{code.deal}" and code.deal == encode_key(key)
    assert text[len(variant) + 1] in "ABCDEFGH"  # two spare bits, then the top three
    assert GameCode.parse(text) == code
    assert GameCode.parse(f"  {text.lower()}\t") == code
    assert eval(repr(code)) == code
    assert code.variant_id == variant


@given(st.integers(1, MAX_DEAL))
def test_c2b_a_key_and_a_number_of_the_same_value_are_different_codes(number):
    numbered = GameCode("SH1", "C4", number)
    long = GameCode("SH1", "C4", number, long=True)
    assert numbered != long
    assert len(numbered.deal) == 7 and len(long.deal) == KEY_DIGITS
    assert GameCode.parse(str(long)) == long and GameCode.parse(str(numbered)) == numbered


def test_c2b_parse_ignores_case_and_surrounding_spaces():
    code = GameCode.parse(f"  eh1-n-{KEY.lower()} \n")
    assert code == GameCode("EH1", "N", decode_key(KEY), long=True)
    assert str(code) == f"EH1-N-{KEY}"
    assert code.deal == KEY and code.variant_id == "EH1-N" and code.long
    assert GameCode.parse(f"Sh1-C4-{KEY[:13].lower()}{KEY[13:]}") == GameCode.parse(f"SH1-C4-{KEY}")


def test_c2b_a_numbered_code_is_not_long_by_default():
    code = GameCode("SH1", "C4", 314)
    assert code.long is False and code == GameCode.parse("SH1-C4-AAAAAJ2")
    assert repr(code) == "GameCode(game='SH1', variant='C4', number=314, long=False)"


@pytest.mark.parametrize(
    ("text", "says"),
    [
        (f"SH1-C4-{KEY[:-1]}", "7 characters (a numbered deal) or 26 characters (a deal key)"),
        (f"SH1-C4-{KEY}A", "not 27"),
        ("SH1-C4-AAAAAAAB", "not 8"),
        ("EH1-N-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAB", "not 32"),
        (f"SH1-C4-{KEY[:-1]}1", "'1' is not a deal digit"),
        (f"SH1-C4-{KEY[:-1]}8", "'8' is not a deal digit"),
        (f"SH1-C4-{KEY[:-1]}0", "'0' is not a deal digit"),
        (f"SH1-C4-{KEY[:5]}!{KEY[6:]}", "'!' is not a deal digit"),
        (f"SH1-C4-{KEY[:5]} {KEY[6:]}", "' ' is not a deal digit"),
        ("SH1-C4-AAAAAAAAAAAAAAAAAAAAAAAAAA", "cannot be 0"),
        ("EH1-N-IAAAAAAAAAAAAAAAAAAAAAAAAA", "not 'I'"),  # exactly 2^128
        ("EH1-N-7777777777777777777777777" + "7", "not '7'"),  # 2^130 - 1
        (f"SH1-C4-Q{KEY[1:]}", "one of ABCDEFGH"),
        (f"SH1-C9-{KEY}", "no variant"),
        (f"XX1-N-{KEY}", "Unknown game"),
    ],
)
def test_c2b_bad_long_codes_say_what_is_wrong(text, says):
    with pytest.raises(MalformedError) as info:
        GameCode.parse(text)
    assert info.value.code == "bad_code"
    assert says in info.value.message


@pytest.mark.parametrize("first", "IJKLMNOPQRSTUVWXYZ234567")
def test_c2b_every_key_from_2_to_the_128_is_refused(first):
    with pytest.raises(MalformedError, match="below 2\\^128"):
        GameCode.parse(f"SH1-C4-{first}{'A' * 25}")
    assert GameCode.parse(f"SH1-C4-H{'7' * 25}").number == MAX_KEY


@pytest.mark.parametrize(
    ("args", "says"),
    [
        (("SH1", "C4", 0), "999,999"),
        (("SH1", "C4", 1_000_000), "999,999"),
        (("SH1", "C4", 2**64), "999,999"),
        (("SH1", "C4", True), "999,999"),
        (("SH1", "C4", "314"), "999,999"),
        (("SH1", "C4", 0, True), "2^128 - 1"),
        (("SH1", "C4", -1, True), "2^128 - 1"),
        (("SH1", "C4", 2**128, True), "2^128 - 1"),
        (("SH1", "C4", 5.0, True), "2^128 - 1"),
        (("SH1", "C4", 5, 1), "True or False"),
        (("SH1", "C3", 5, True), "no variant"),
    ],
)
def test_c2b_game_code_checks_its_fields(args, says):
    with pytest.raises(MalformedError) as info:
        GameCode(*args)
    assert info.value.code == "bad_code"
    assert says in info.value.message


def test_c2b_encode_and_decode_key_refuse_what_is_no_key():
    for key in (0, -1, 2**128):
        with pytest.raises(MalformedError):
            encode_key(key)
    for text in ("AAAAAJ2", "I" + "A" * 25, "A" * 26):
        with pytest.raises(MalformedError):
            decode_key(text)
    with pytest.raises(MalformedError, match="7 characters long"):
        decode_deal(KEY)  # numbered deals only


@pytest.mark.parametrize("long", [False, True])
def test_c2b_same_cards_lists_the_deal_in_every_variant_of_its_game(long):
    number = decode_key(KEY) if long else 314
    c2 = GameCode("SH1", "C2", number, long)
    assert c2.same_cards() == (
        GameCode("SH1", "C4", number, long),
        c2,
        GameCode("SH1", "C1", number, long),
    )
    assert all(code.same_cards() == c2.same_cards() for code in c2.same_cards())
    eh = GameCode("EH1", "N", number, long)
    assert eh.same_cards() == (eh,)


def test_variants():
    assert parse_variant("eh1-n") == ("EH1", "N")
    assert parse_variant("SH1-C1") == ("SH1", "C1")
    for bad in ("SH1", "SH1-C5", "EH1-N-AAAAAAB", 3):
        with pytest.raises(MalformedError):
            parse_variant(bad)


def test_cards_notation_and_identity():
    assert parse_card("TH") == (10, Suit.H)
    assert parse_card("as") == (1, Suit.S)
    assert [c.text for c in CARDS[:13]] == [r + "S" for r in "A23456789TJQK"]
    assert [c.text for c in CARDS[13:52:13]] == ["AH", "AD", "AC"]
    # Twins: the same text, distinct physical cards (RULES.md A, C3).
    assert CARDS[9].text == CARDS[61].text == "TS"
    assert CARDS[9] is not CARDS[61] and CARDS[9] != CARDS[61]
    assert CARDS[61].deck == 1
    assert [c.red for c in (CARDS[0], CARDS[13], CARDS[26], CARDS[39])] == [
        False,
        True,
        True,
        False,
    ]
    assert eval(repr(CARDS[61]), {"Card": type(CARDS[0])}) is CARDS[61]


@pytest.mark.parametrize("bad", ["1H", "TX", "T", "THH", "", "10H"])
def test_bad_card_text(bad):
    with pytest.raises(MalformedError):
        parse_card(bad)
