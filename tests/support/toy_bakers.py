"""A toy third game, Baker's Game, declared the way a real one is: one engine
module and one declaration, nothing else of the project changed (issue 26).

It lives in the tests and is registered only by the ``bakers_game`` fixture
(``tests/conftest.py``), which unregisters it after: the service never knows
it. Like Seahaven Towers without its group moves: 52 cards dealt face up to
eight columns (7, 7, 7, 7, 6, 6, 6, 6), four cells (``BG1-C4``) or two
(``BG1-C2``), foundations built up in suit from the ace, columns built down in
suit, one card at a time. An empty column takes only a king, as in the other
two games (``Game.drop_refusal`` decides that for every game). +10 for a card
onto a foundation, -10 for one taken back.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from games.engine import Game, GameSpec, Move, Stock, Suit
from games.engine.cards import Card
from games.engine.sentences import Sentence, gettext_noop
from games.engine.solver import Budget, Outcome, Solution
from games.engine.spec import Effort, VariantSpec

FOUNDATION_POINTS = 10


class BakersGame(Game):
    """Baker's Game, rules version 1 (``BG1-C4-…``, ``BG1-C2-…``)."""

    game = "BG1"
    title = "Baker's Game"
    n_cards = 52
    n_columns = 8
    foundation_suits = (Suit.S, Suit.H, Suit.D, Suit.C)
    reasons: ClassVar[dict[str, Sentence]] = {
        "wrong_build": gettext_noop(
            "In Baker's Game a card goes only onto the next higher card of its own suit; "
            "%(card)s cannot go onto %(top)s."
        ),
        "kings_only": gettext_noop("An empty column takes only a king; %(card)s cannot go there."),
        "one_card_at_a_time": gettext_noop("Baker's Game moves one card at a time."),
        "cell_occupied": gettext_noop("A cell holds one card, and %(dst)s is occupied."),
        "no_stock": gettext_noop("Baker's Game has no stock: every card is dealt face up."),
    }

    def n_cells(self) -> int:
        return BAKERS.variant(self.code.variant).cells

    def deal(self, cards: list[Card]) -> None:
        for i, card in enumerate(cards):
            self.piles[self.columns[i % self.n_columns]].append(card)

    def builds_on(self, card: Card, top: Card) -> bool:
        return top.suit is card.suit and top.rank == card.rank + 1

    def group_refusal(self, src: str, dst: str, n: int) -> str | None:
        if src[0] == "f":
            return "take_back_one_card"
        if dst[0] == "f":
            return "foundation_one_card"
        return "one_card_at_a_time"

    def group_counts(self, src: str) -> Iterator[int]:
        return iter(())

    def points(self, src: str, dst: str, card: Card, turned: bool) -> tuple[int, bool]:
        if dst[0] == "f":
            return FOUNDATION_POINTS, False
        return (-FOUNDATION_POINTS if src[0] == "f" else 0), False


def _position(game: Game) -> tuple[object, ...]:
    """A position whichever column or cell holds what."""
    columns = sorted(tuple(c.id for c in game.piles[t]) for t in game.columns)
    cells = sorted(c.id for cell in game.cells for c in game.piles[cell])
    return tuple(columns), tuple(cells), tuple(len(game.piles[f]) for f in game.foundations)


def solve_bakers(game: Game, budget: Budget) -> Solution:
    """A plain depth-first search, foundation moves first, never a take-back:
    enough for a toy (the real games have their own, faster solvers)."""
    seen: set[tuple[object, ...]] = set()
    line: list[Move | Stock] = []

    def search(board: Game) -> bool:
        if board.won:
            return True
        if budget.exhausted(len(seen)):
            return False
        key = _position(board)
        if key in seen:
            return False
        seen.add(key)
        moves = [m for m in board.legal_moves if isinstance(m, Move) and m.source[0] != "f"]
        moves.sort(key=lambda m: (m.target[0] != "f", m.target[0] == "c", m.target[0] == "t"))
        for move in moves:
            after = board.copy()
            line.append(after.apply(move))
            if search(after):
                return True
            line.pop()
        return False

    if search(game.copy()):
        return Solution(Outcome.SOLVED, tuple(line), len(seen))
    # Take-backs were never tried: no search here proves a deal lost.
    return Solution(Outcome.UNKNOWN, (), len(seen))


def _with_cells(cells: int, level: str, candidates: int) -> VariantSpec:
    return VariantSpec(
        letter=f"C{cells}",
        name=f"Baker's Game · {level} ({cells} cells)",
        tab=f"Baker's · {cells} cells",
        choice=f"{cells} · {level}",
        effort=Effort(nodes=20_000, candidates=candidates, seconds=10),
        cells=cells,
    )


BAKERS = GameSpec(
    prefix=BakersGame.game,
    title=gettext_noop("Baker's Game"),
    engine=BakersGame,
    solver=solve_bakers,
    icon="♣♦",
    variants=(_with_cells(4, "Easy", 20), _with_cells(2, "Hard", 50)),
)
"""Baker's Game's declaration: what ``registry.register`` takes."""

TOY_VARIANTS = tuple(BAKERS.variant_id(v) for v in BAKERS.variants)
"""``("BG1-C4", "BG1-C2")``: what the suites add to the registry's variants."""

WON_DEAL = "BG1-C4-AAAAAAF"
"""A deal :func:`solve_bakers` wins in about 12k positions (2-3 s)."""
