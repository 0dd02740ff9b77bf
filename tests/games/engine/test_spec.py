"""Each game declares itself once (issue 16): the registry's tables come from the
declarations, and what a declaration says agrees with its engine."""

from __future__ import annotations

import pytest

from games.engine import (
    ALL_VARIANTS,
    GAMES,
    SPECS,
    VARIANTS,
    GameCode,
    MalformedError,
    new_game,
    parse_variant,
    solve,
)
from games.engine.solver import Outcome


def test_the_registry_lists_the_declared_games_and_variants_in_order():
    assert list(SPECS) == ["EH1", "SH1"]
    assert ALL_VARIANTS == ("EH1-N", "SH1-C4", "SH1-C2", "SH1-C1")
    assert {prefix: spec.engine for prefix, spec in SPECS.items()} == GAMES
    assert [spec.variant_id(variant) for spec, variant in VARIANTS.values()] == list(ALL_VARIANTS)


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_codes_accept_exactly_the_declared_variants(variant):
    assert "-".join(parse_variant(variant.lower())) == variant
    game, letter = variant.split("-")
    assert [c.variant for c in GameCode(game, letter, 5).same_cards()] == [
        v.letter for v in SPECS[game].variants
    ]


def test_an_undeclared_game_or_variant_is_no_code():
    with pytest.raises(MalformedError, match="known games: EH1, SH1"):
        GameCode.parse("XX1-N-AAAAAAF")
    with pytest.raises(MalformedError, match="its variants: C4, C2, C1"):
        GameCode.parse("SH1-C3-AAAAAAF")


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_the_layout_hints_are_every_pile_of_the_variant_once(variant):
    spec, declared = VARIANTS[variant]
    layout = spec.layouts[declared.letter]
    game = new_game(f"{variant}-AAAAAAF")
    placed = layout.top_left + layout.top_right + layout.columns
    assert sorted(placed) == sorted(game.view()["piles"])
    assert layout.columns == game.columns
    assert len(game.cells) == declared.cells


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_each_variant_names_itself_and_its_daily_effort(variant):
    spec, declared = VARIANTS[variant]
    assert declared.name.startswith(spec.title.split()[0])
    assert declared.tab and declared.effort.nodes > 0 and declared.effort.candidates > 0
    assert bool(declared.choice) == (len(spec.variants) > 1)


@pytest.mark.parametrize("code", ["SH1-C4-AAAAAJ2", "EH1-N-AAAAAAF"])
def test_solve_uses_the_solver_the_game_declares(code):
    result = solve(new_game(code), nodes=60_000)
    assert result.outcome is Outcome.SOLVED
    game = new_game(code)
    for action in result.line:
        game.apply(action)
    assert game.won
