"""The predicted difficulty (issue 27, ``games/engine/difficulty.py``): the same
answer for the same deal, within its budgets, levels in order from a position
anyone wins to a real deal, and a published block of counts only."""

from __future__ import annotations

import random
import time

import pytest

from games.engine import new_game
from games.engine.difficulty import (
    LEVELS,
    level,
    playout,
    playouts_home,
    predict,
    predict_game,
    score,
)
from games.engine.easy_harp import EASY_HARP
from games.engine.seahaven import SEAHAVEN
from tests.support.difficulty import PREDICTED_KEYS
from tests.support.positions import position
from tests.support.toy_bakers import BAKERS

SMALL = {"playouts": 6, "first_move_nodes": 2_000}

# Every suit a column, king at the bottom, ace on top: every card goes home at once.
SORTED = {
    f"t{i + 1}": " ".join(f"{rank}{suit}" for rank in "KQJT98765432A")
    for i, suit in enumerate("SHDC")
}


def test_the_same_deal_gives_the_same_prediction():
    first = predict("SH1-C4-AAAAAAF", **SMALL)
    again = predict("SH1-C4-AAAAAAF", **SMALL)
    assert first == again
    assert first.solved and first.level in range(1, 6)
    assert first.bound == 52 and first.line >= first.bound
    assert 0 <= first.winning_first <= first.first_moves == first.probed_first
    assert 0 <= first.playout_wins <= first.playouts == 6
    assert 0 <= first.playout_home <= first.bound


def test_a_position_anyone_wins_is_level_one_and_a_real_deal_is_harder():
    trivial = predict_game(position("SH1-C4-AAAAAAB", **SORTED), **SMALL)
    assert trivial.solved
    assert trivial.line == trivial.bound == 52
    assert trivial.winning_first == trivial.first_moves > 0
    assert trivial.playout_wins == trivial.playouts
    assert trivial.playout_home == 52
    assert trivial.score < 0.1 and trivial.level == 1 and trivial.name == "easy"
    real = predict("SH1-C4-AAAAAAB", **SMALL)  # a third of its first moves lose
    assert real.solved
    assert real.score > trivial.score
    assert real.level > trivial.level


def test_a_deal_without_a_proof_has_no_level():
    """Out of budget: unknown, and nothing else is computed."""
    found = predict("SH1-C1-AAAAAAF", nodes=1, **SMALL)
    assert not found.solved
    assert found.level == 0 and found.name == "unknown"
    assert found.to_json()["level"] is None
    assert found.first_moves == found.playouts == 0


def test_the_time_budget_stops_the_first_move_searches():
    found = predict("SH1-C4-AAAAAAF", seconds=0.0, **SMALL)
    # The proof itself runs out of time at once: a budget of no time is no answer.
    assert not found.solved and found.level == 0


def test_a_playout_is_seeded_and_brings_every_card_home_from_a_won_position():
    start = position("SH1-C4-AAAAAAB", **SORTED)
    assert playout(start, random.Random(1)) == 52
    assert start == position("SH1-C4-AAAAAAB", **SORTED)  # unchanged
    deal = new_game("SH1-C4-AAAAAAF")
    runs = [playouts_home(deal, playouts=5) for _ in range(2)]
    assert runs[0] == runs[1] and all(0 <= cards <= 52 for cards in runs[0])
    # Past its deadline a prediction plays one playout, not none and not all.
    assert len(playouts_home(deal, playouts=5, deadline=time.perf_counter())) == 1


@pytest.mark.parametrize(
    "easier, harder",
    [
        ({"nodes": 100}, {"nodes": 100_000}),
        ({"line": 60}, {"line": 90}),
        ({"winning": 1.0}, {"winning": 0.5}),
        ({"home": 0.8}, {"home": 0.1}),
    ],
)
def test_the_score_grows_with_each_sign_of_difficulty(easier, harder):
    base = {"nodes": 1_000, "line": 70, "bound": 52, "winning": 0.8, "home": 0.3}
    assert score(**{**base, **easier}) < score(**{**base, **harder})


def test_levels_run_from_easy_to_fiendish_in_order():
    declared = [v.levels for spec in (EASY_HARP, SEAHAVEN) for v in spec.variants]
    assert all(cuts is not None for cuts in declared)  # the service's games are calibrated
    for cuts in declared:
        assert list(cuts) == sorted(cuts)
        found = [level(value, cuts) for value in (0.0, *cuts, 1.0)]
        assert found == sorted(found) and found[0] == 1 and found[-1] == 5
    assert len(LEVELS) == 5


def test_the_published_block_is_counts_and_a_level():
    block = predict("SH1-C4-AAAAAAF", **SMALL).to_json()
    assert set(block) == PREDICTED_KEYS
    assert block["name"] in LEVELS
    assert block["calibrated"] is True  # Seahaven declares its cuts
    for key, value in block.items():
        if key not in ("name", "calibrated"):
            assert type(value) in (int, float), key


def test_a_variant_that_declares_no_cuts_says_its_level_is_a_first_guess():
    """A new game (the toy Baker's Game, registered for the engine's suite,
    declares no ``levels``) gets a level from the generic cuts, said as not
    calibrated — never silently."""
    variant = BAKERS.variants[0]
    assert variant.levels is None
    found = predict(f"{BAKERS.prefix}-{variant.letter}-AAAAAAI", nodes=5_000, **SMALL)
    assert found.solved  # a toy deal the solver proves within that budget
    assert found.to_json()["calibrated"] is False and found.level
