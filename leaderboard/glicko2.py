"""Glicko-2, as Glickman describes it ("Example of the Glicko-2 system", 2013):
pure Python, no Django, fully typed (mypy ``--strict``; an import contract keeps
the project out of it).

One call, ``rate``, is one player's update over one rating period from their
rating *before* the period and the period's games. Ratings are on the Glicko
scale (1500, RD 350) in and out; the steps run on the Glicko-2 scale (μ, φ) as
the paper does. ``rate`` follows the paper's steps 2–8, with the Illinois
algorithm of step 5 for the new volatility; a player with no game in a period
only sees their deviation grow (step 6 alone, ``absent``).

Beyond the paper, each game may carry a *weight* (1 in the paper): the game's
share of v⁻¹ and of Δ is multiplied by it. The race rating gives each pairwise
game of an n-racer race the weight 1/(n-1) (``race_games``; the reason is in
docs/api.md, "Race rating").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

SCALE = 173.7178
"""Glicko-2's unit on the Glicko scale: 400 / ln 10 (the paper's step 2)."""
BASE = 1500.0
DEFAULT_RATING = 1500.0
DEFAULT_DEVIATION = 350.0
DEFAULT_VOLATILITY = 0.06
MAX_DEVIATION = 350.0
"""A deviation never grows past a new player's (lichess caps it the same way)."""
TAU = 0.75
"""The system constant τ: how fast volatility may change. Glickman advises 0.3 to
1.2; lichess rates its games and puzzles with 0.75. A race's outcome also moves
with the deal (one deal suits one racer's way of playing more than another's), so
we take the same, more changeable end of the range as lichess."""
EPSILON = 0.000001
"""The convergence tolerance of step 5 (the paper's ε)."""


@dataclass(frozen=True)
class Rating:
    """A rating on the Glicko scale: rating, deviation (RD), volatility σ."""

    rating: float = DEFAULT_RATING
    deviation: float = DEFAULT_DEVIATION
    volatility: float = DEFAULT_VOLATILITY


@dataclass(frozen=True)
class Game:
    """One game of a period against an opponent as rated *before* the period:
    ``score`` 1 a win, 0.5 a draw, 0 a loss; ``weight`` its share (1 in the paper)."""

    opponent: float
    opponent_deviation: float
    score: float
    weight: float = 1.0

    def __post_init__(self) -> None:
        if not 0.0 <= self.score <= 1.0:
            raise ValueError(f"a score is from 0 to 1, not {self.score!r}")
        if not self.weight > 0.0:
            raise ValueError(f"a weight is above 0, not {self.weight!r}")
        if not self.opponent_deviation > 0.0:
            raise ValueError(f"a deviation is above 0, not {self.opponent_deviation!r}")


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def _volatility(sigma: float, phi: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility σ', by the Illinois algorithm (regula falsi)."""
    a = math.log(sigma * sigma)
    d2 = delta * delta
    p2 = phi * phi

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (d2 - p2 - v - ex) / (2.0 * (p2 + v + ex) ** 2) - (x - a) / (tau * tau)

    big_a = a
    if d2 > p2 + v:
        big_b = math.log(d2 - p2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0.0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    while abs(big_b - big_a) > EPSILON:
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0.0:
            big_a, f_a = big_b, f_b
        else:
            f_a /= 2.0
        big_b, f_b = big_c, f_c
    return math.exp(big_a / 2.0)


def absent(player: Rating, periods: float = 1.0) -> Rating:
    """A player who played no game for ``periods`` rating periods (a fraction is
    allowed): step 6 alone, φ* = √(φ² + t·σ²), the deviation capped at a new
    player's. Rating and volatility stay."""
    if periods < 0:
        raise ValueError(f"periods are 0 or more, not {periods!r}")
    phi = player.deviation / SCALE
    grown = math.sqrt(phi * phi + periods * player.volatility * player.volatility) * SCALE
    return Rating(player.rating, min(grown, MAX_DEVIATION), player.volatility)


def rate(player: Rating, games: Iterable[Game], *, tau: float = TAU) -> Rating:
    """The player's rating after one rating period with ``games`` (rated from the
    opponents' ratings before the period). No game: ``absent(player)``."""
    games = list(games)
    if not games:
        return absent(player)
    # Step 2: to the Glicko-2 scale.
    mu = (player.rating - BASE) / SCALE
    phi = player.deviation / SCALE
    # Steps 3 and 4: the estimated variance v and improvement Δ (weighted sums).
    v_inv = 0.0
    improvement = 0.0
    for game in games:
        mu_j = (game.opponent - BASE) / SCALE
        phi_j = game.opponent_deviation / SCALE
        g = _g(phi_j)
        e = _expected(mu, mu_j, phi_j)
        v_inv += game.weight * g * g * e * (1.0 - e)
        improvement += game.weight * g * (game.score - e)
    v = 1.0 / v_inv
    delta = v * improvement
    # Step 5: the new volatility.
    sigma = _volatility(player.volatility, phi, v, delta, tau)
    # Steps 6 and 7: the new deviation and rating.
    phi_star = math.sqrt(phi * phi + sigma * sigma)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    # Step 8: back to the Glicko scale.
    return Rating(
        rating=new_mu * SCALE + BASE,
        deviation=min(new_phi * SCALE, MAX_DEVIATION),
        volatility=sigma,
    )


def race_games(
    standings: Sequence[tuple[int, int]], ratings: dict[int, Rating]
) -> dict[int, list[Game]]:
    """Each racer's games of one race (one rating period): a game against every
    other racer, 1 for a better (smaller) place, 0.5 for an equal one, 0 for a
    worse, each weighted 1/(n-1) so that the race counts as much as one game,
    spread over the field. ``standings`` are (player, place); ``ratings`` every
    racer's rating before the race."""
    n = len(standings)
    if n < 2:
        return {player: [] for player, _ in standings}
    weight = 1.0 / (n - 1)
    games: dict[int, list[Game]] = {}
    for player, place in standings:
        games[player] = [
            Game(
                opponent=ratings[other].rating,
                opponent_deviation=ratings[other].deviation,
                score=1.0 if place < other_place else 0.5 if place == other_place else 0.0,
                weight=weight,
            )
            for other, other_place in standings
            if other != player
        ]
    return games


def rate_race(
    standings: Sequence[tuple[int, int]], ratings: dict[int, Rating], *, tau: float = TAU
) -> dict[int, Rating]:
    """Every racer's rating after a race, all from their ratings before it."""
    games = race_games(standings, ratings)
    return {player: rate(ratings[player], games[player], tau=tau) for player, _ in standings}
