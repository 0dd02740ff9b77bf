"""Glicko-2 (``leaderboard/glicko2.py``), no database: Glickman's worked example,
the weights and the race's pairwise games, and properties over random periods."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from leaderboard.glicko2 import (
    DEFAULT_DEVIATION,
    MAX_DEVIATION,
    Game,
    Rating,
    absent,
    race_games,
    rate,
    rate_race,
)

# "Example of the Glicko-2 system" (Glickman, 2013), section "Example calculation".
PAPER_PLAYER = Rating(1500, 200, 0.06)
PAPER_GAMES = [Game(1400, 30, 1), Game(1550, 100, 0), Game(1700, 300, 0)]


def test_the_papers_worked_example():
    after = rate(PAPER_PLAYER, PAPER_GAMES, tau=0.5)
    assert after.deviation < PAPER_PLAYER.deviation
    # The paper rounds its steps' figures (Δ, v, σ') as it goes and prints 1464.06;
    # carried exactly the rating is 1464.05 (as other implementations find).
    assert after.rating == pytest.approx(1464.06, abs=0.02)
    assert after.deviation == pytest.approx(151.52, abs=0.01)
    assert after.volatility == pytest.approx(0.05999, abs=0.00001)


def test_weights_of_one_are_the_paper():
    weighted = rate(
        PAPER_PLAYER,
        [Game(g.opponent, g.opponent_deviation, g.score, 1.0) for g in PAPER_GAMES],
        tau=0.5,
    )
    assert weighted == rate(PAPER_PLAYER, PAPER_GAMES, tau=0.5)


def test_a_game_twice_at_half_weight_is_the_game_once():
    once = rate(Rating(1500, 200), [Game(1600, 80, 1)])
    halves = rate(Rating(1500, 200), [Game(1600, 80, 1, 0.5), Game(1600, 80, 1, 0.5)])
    assert halves.rating == pytest.approx(once.rating, abs=1e-6)
    assert halves.deviation == pytest.approx(once.deviation, abs=1e-6)


def test_an_absent_players_deviation_grows_and_is_capped():
    player = Rating(1620, 50, 0.06)
    one = absent(player)
    # Step 6 alone: φ* = √(φ² + σ²), on the Glicko-2 scale (173.7178).
    assert one.deviation == pytest.approx(math.sqrt((50 / 173.7178) ** 2 + 0.06**2) * 173.7178)
    assert (one.rating, one.volatility) == (1620, 0.06)
    assert absent(player, 0) == player
    assert absent(player, 10).deviation > one.deviation > 50
    assert absent(player, 10_000).deviation == MAX_DEVIATION
    assert rate(player, []) == one  # a period without games


@pytest.mark.parametrize(
    "game",
    [
        {"opponent": 1500, "opponent_deviation": 100, "score": 1.5},
        {"opponent": 1500, "opponent_deviation": 100, "score": -0.1},
        {"opponent": 1500, "opponent_deviation": 100, "score": 1, "weight": 0},
        {"opponent": 1500, "opponent_deviation": 0, "score": 1},
    ],
)
def test_a_game_out_of_range_is_refused(game):
    with pytest.raises(ValueError):
        Game(**game)


def test_a_race_is_every_pair_weighted_by_one_over_n_minus_one():
    ratings = {1: Rating(1500, 100), 2: Rating(1600, 120), 3: Rating(1400, 300)}
    games = race_games([(1, 1), (2, 2), (3, 2)], ratings)
    assert games[1] == [Game(1600, 120, 1.0, 0.5), Game(1400, 300, 1.0, 0.5)]
    assert games[2] == [Game(1500, 100, 0.0, 0.5), Game(1400, 300, 0.5, 0.5)]
    assert games[3] == [Game(1500, 100, 0.0, 0.5), Game(1600, 120, 0.5, 0.5)]


def test_two_racers_are_one_game():
    a, b = Rating(1500, 200), Rating(1450, 90)
    after = rate_race([(1, 1), (2, 2)], {1: a, 2: b})
    assert after[1] == rate(a, [Game(1450, 90, 1)])
    assert after[2] == rate(b, [Game(1500, 200, 0)])


def test_a_race_is_rated_from_the_ratings_before_it():
    field = {p: Rating() for p in range(1, 6)}
    after = rate_race([(p, p) for p in range(1, 6)], field)
    # An even field of new players: the order of the places is the order of the ratings,
    # symmetric about 1500, the middle place unchanged.
    ranked = [after[p].rating for p in range(1, 6)]
    assert ranked == sorted(ranked, reverse=True)
    assert after[3].rating == pytest.approx(1500)
    assert after[1].rating - 1500 == pytest.approx(1500 - after[5].rating)
    # All deviations shrink, the same for the same information.
    assert all(after[p].deviation < DEFAULT_DEVIATION for p in after)


def test_fifty_racers_are_not_fifty_games():
    """1/(n-1): winning a 50-racer race of new players moves a new player about as
    far as winning one game, where 49 unweighted games would make a new rating look
    settled after one race."""
    field = {p: Rating() for p in range(50)}
    after = rate_race([(p, p + 1) for p in range(50)], field)
    one_game = rate(Rating(), [Game(1500, 350, 1)])
    assert after[0].rating == pytest.approx(one_game.rating, abs=1)
    assert after[0].deviation > 250
    unweighted = rate(Rating(), [Game(1500, 350, 1)] * 49)
    assert unweighted.deviation < 100


ratings = st.builds(
    Rating,
    st.floats(800, 2400),
    st.floats(30, 350),
    st.floats(0.03, 0.1),
)
opponents = st.lists(st.tuples(st.floats(800, 2400), st.floats(30, 350)), min_size=1, max_size=8)
weights = st.sampled_from([1.0, 0.5, 1 / 49])


@given(ratings, opponents, weights)
def test_winning_raises_losing_lowers_and_the_deviation_shrinks(player, field, weight):
    won = rate(player, [Game(r, d, 1, weight) for r, d in field])
    lost = rate(player, [Game(r, d, 0, weight) for r, d in field])
    assert won.rating > player.rating > lost.rating
    for after in (won, lost):
        # A period with games: the deviation shrinks from φ* = √(φ² + σ'²) (step 6
        # with the new volatility), what it would have grown to without them.
        grown = absent(Rating(player.rating, player.deviation, after.volatility)).deviation
        assert after.deviation < grown
        assert all(math.isfinite(x) for x in (after.rating, after.deviation, after.volatility))
        assert 0 < after.volatility < 1


@given(ratings, opponents)
def test_a_better_score_never_rates_lower(player, field):
    scores = [rate(player, [Game(r, d, s) for r, d in field]).rating for s in (0, 0.5, 1)]
    assert scores == sorted(scores)


@given(st.lists(st.tuples(st.floats(1000, 2000), st.floats(40, 350)), min_size=2, max_size=12))
def test_a_race_of_equal_places_moves_nobody_far(field):
    """All tied: each racer draws every other, so nobody's rating moves past the
    field's ratings (a draw pulls towards the opponent)."""
    before = {i: Rating(r, d) for i, (r, d) in enumerate(field)}
    after = rate_race([(i, 1) for i in before], before)
    low, high = min(r for r, _ in field), max(r for r, _ in field)
    for i in before:
        assert low - 1e-6 <= after[i].rating <= high + 1e-6
