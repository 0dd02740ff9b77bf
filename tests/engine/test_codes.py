"""Game codes (RULES.md C2) and card notation (PRODUCT.md, Cards and piles)."""

import pytest

from games.engine import (
    CARDS,
    GameCode,
    MalformedError,
    Suit,
    decode_deal,
    encode_deal,
    parse_card,
    parse_variant,
)


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
