"""Each game declares itself once (issues 16, 26): the registry's tables come from
the declarations, and what a declaration says agrees with its engine. The toy
Baker's Game (``tests/support/toy_bakers.py``) is registered for this package (its conftest):
every test over the registry's variants runs with it."""

from __future__ import annotations

import re

import pytest

from games.engine import (
    ALL_VARIANTS,
    GAMES,
    SPECS,
    VARIANTS,
    GameCode,
    IllegalActionError,
    MalformedError,
    Move,
    Plural,
    new_game,
    parse_variant,
    register,
    solve,
    unregister,
)
from games.engine.base import COMMON_REASONS
from games.engine.sentences import fill
from games.engine.solver import Outcome
from tests.support.toy_bakers import BAKERS, TOY_VARIANTS, WON_DEAL

REGISTERED = ALL_VARIANTS + TOY_VARIANTS


def test_the_registry_lists_the_declared_games_and_variants_in_order():
    assert list(SPECS) == ["EH1", "SH1", "BG1"]
    # The ranked variants are the service's, fixed at import: a test's game has no daily.
    assert ALL_VARIANTS == ("EH1-N", "SH1-C4", "SH1-C2", "SH1-C1")
    assert {prefix: spec.engine for prefix, spec in SPECS.items()} == GAMES
    assert [spec.variant_id(variant) for spec, variant in VARIANTS.values()] == list(REGISTERED)


def test_a_game_unregistered_is_forgotten_and_comes_back_registered_again():
    unregister("BG1")
    try:
        assert "BG1" not in SPECS and "BG1" not in GAMES and "BG1-C4" not in VARIANTS
        with pytest.raises(MalformedError, match="known games: EH1, SH1\\."):
            GameCode.parse(WON_DEAL)
    finally:
        register(BAKERS)
    assert new_game(WON_DEAL).code.variant_id == "BG1-C4"
    with pytest.raises(ValueError, match="registered already"):
        register(BAKERS)


@pytest.mark.parametrize("variant", REGISTERED)
def test_codes_accept_exactly_the_declared_variants(variant):
    assert parse_variant(variant.lower()).id == variant
    assert parse_variant(f" {variant.lower()} ") == tuple(variant.split("-"))
    game, letter = variant.split("-")
    assert [c.variant for c in GameCode(game, letter, 5).same_cards()] == [
        v.letter for v in SPECS[game].variants
    ]


def test_an_undeclared_game_or_variant_is_no_code():
    with pytest.raises(MalformedError, match="known games: EH1, SH1, BG1"):
        GameCode.parse("XX1-N-AAAAAAF")
    with pytest.raises(MalformedError, match="its variants: C4, C2, C1"):
        GameCode.parse("SH1-C3-AAAAAAF")


@pytest.mark.parametrize("variant", REGISTERED)
def test_the_layout_hints_are_every_pile_of_the_variant_once(variant):
    spec, declared = VARIANTS[variant]
    layout = spec.layouts[declared.letter]
    game = new_game(f"{variant}-AAAAAAF")
    placed = layout.top_left + layout.top_right + layout.columns
    assert sorted(placed) == sorted(game.view()["piles"])
    assert layout.columns == game.columns
    assert len(game.cells) == declared.cells
    # Each foundation spot's suit, as the engine deals with it (C7): the client's label.
    assert layout.suits == {spot: suit.name for spot, suit in game.spot_suit.items()}
    assert list(layout.suits) == list(layout.top_right)


@pytest.mark.parametrize("variant", REGISTERED)
def test_each_variant_names_itself_and_its_daily_effort(variant):
    spec, declared = VARIANTS[variant]
    assert declared.name.startswith(spec.title.split()[0])
    assert declared.tab and declared.effort.nodes > 0 and declared.effort.candidates > 0
    assert bool(declared.choice) == (len(spec.variants) > 1)


@pytest.mark.parametrize("code", ["SH1-C4-AAAAAJ2", "EH1-N-AAAAAAF", WON_DEAL])
def test_solve_uses_the_solver_the_game_declares(code):
    result = solve(new_game(code), nodes=60_000)
    assert result.outcome is Outcome.SOLVED
    game = new_game(code)
    for action in result.line:
        game.apply(action)
    assert game.won


@pytest.mark.parametrize("prefix", ["EH1", "SH1", "BG1"])
def test_the_refusal_sentences_are_the_declarations_with_the_params_as_fields(prefix):
    """Every game refuses with the shared sentences, its own in their place; each is
    a ``%(name)s`` template the client fills from the error's params (reasons.js),
    so each field it names is a param or made from them (``need``)."""
    refusals = SPECS[prefix].refusals
    assert set(COMMON_REASONS) <= set(refusals)
    assert {c: s for c, s in refusals.items() if s is not COMMON_REASONS.get(c)} == (
        SPECS[prefix].engine.reasons
    )
    params = {"src", "dst", "n", "have", "capacity", "card", "top", "spot_suit", "need"}
    for code, sentence in refusals.items():
        templates = [sentence.one, sentence.other] if isinstance(sentence, Plural) else [sentence]
        for template in templates:
            fields = set(re.findall(r"%\((\w+)\)s", template))
            assert fields <= params, (code, fields - params)


@pytest.mark.parametrize("variant", REGISTERED)
def test_a_refusal_says_its_games_declared_sentence(variant):
    game = new_game(f"{variant}-AAAAAAF")
    with pytest.raises(IllegalActionError) as refused:
        game.apply(Move("t1", "t2", 30))
    fields = {**refused.value.params, "card": "that card", "top": "an empty column"}
    sentence = SPECS[game.code.game].refusals[refused.value.code]
    assert refused.value.message == fill(sentence, fields)


def test_a_plural_sentence_takes_the_english_form_of_its_count():
    game = new_game("SH1-C4-AAAAAJ2")
    with pytest.raises(IllegalActionError) as refused:
        game.apply(Move("t1", "t2", 9))
    assert refused.value.code == "not_enough_cards"
    assert refused.value.message == "t1 holds 5 cards; 9 cannot be moved from it."
