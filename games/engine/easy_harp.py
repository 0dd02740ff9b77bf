"""Easy Harp (RULES.md Part A): two decks, nine columns, a stock, one card at a time."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from .actions import Stock
from .base import Game
from .cards import KING, Card, Suit
from .history import Step
from .sentences import Sentence, gettext_noop
from .solver.easy_harp import solve_easy_harp
from .spec import Effort, GameSpec, NeverLooked, VariantSpec

FACE_DOWN_POINTS = 5
WASTE_TO_COLUMN_POINTS = 5
FOUNDATION_POINTS = 10


class EasyHarp(Game):
    """Easy Harp, rules version 1 (``EH1-N-…``).

    The deal: the 104 shuffled cards are dealt column by column, ``t1`` taking
    the first card, ``t2`` the next two, …, ``t9`` the next nine; the last card
    dealt to a column is its face-up top, the others are face down. The other 59
    cards form the stock in shuffled order, the 46th card of the shuffle drawn
    first (so as a pile, bottom to top, the stock is those 59 cards reversed).

    Scoring (C3): +10 the first time a physical card reaches a foundation, +5 for
    each face-down card turned up, +5 for each card moved from the waste to a
    column; nothing else. A won game scores 1 220 + 5 × waste-to-column moves.
    """

    game = "EH1"
    title = "Easy Harp"
    hides_cards = True
    n_cards = 104
    n_columns = 9
    foundation_suits = (Suit.S, Suit.H, Suit.D, Suit.C) * 2  # C7
    reasons: ClassVar[dict[str, Sentence]] = {
        "one_card_at_a_time": gettext_noop(
            "Easy Harp moves one card at a time between columns; only a king-led run may move "
            "together, and only into an empty column."
        ),
        "not_a_run": gettext_noop(
            "Only a run headed by a king, alternating in colour and descending in rank, can move "
            "as a whole."
        ),
        "wrong_build": gettext_noop(
            "In Easy Harp a card goes onto a face-up card of the opposite colour and exactly one "
            "rank higher; %(card)s cannot go onto %(top)s."
        ),
        "kings_only": gettext_noop(
            "An empty column accepts only a king (or a king-led run); %(card)s cannot go there."
        ),
        "stock_source": gettext_noop("Stock cards are drawn with the stock action, one at a time."),
        "not_destination": gettext_noop(
            "Cards cannot be put on the stock or the waste; only columns and foundations "
            "receive cards."
        ),
        "waste_one_card": gettext_noop("Only the top card of the waste is playable."),
        "stock_empty": gettext_noop(
            "The stock and the waste are both empty: there is nothing to draw."
        ),
        "no_place": gettext_noop(
            "Double tap found no place for %(card)s: no foundation, no column and no empty "
            "column accepts it."
        ),
    }

    def extra_piles(self) -> tuple[str, ...]:
        return ("s", "w")

    def deal(self, cards: list[Card]) -> None:
        start = 0
        for size, column in enumerate(self.columns, start=1):
            self.piles[column] = cards[start : start + size]
            self.down[column] = size - 1
            start += size
        self.piles["s"] = cards[start:][::-1]

    def builds_on(self, card: Card, top: Card) -> bool:
        # "The 7♥ can go onto the 8♠ or the 8♣" (A): opposite colour, one rank higher.
        return top.red is not card.red and top.rank == card.rank + 1

    def group_refusal(self, src: str, dst: str, n: int) -> str | None:
        # "Between two columns only the top card may move … This is also the only
        # exception: a run headed by a king … can be moved as a whole into an empty
        # column. Such a run cannot be moved as a whole anywhere else." (A)
        if src == "w":
            return "waste_one_card"
        if src[0] == "f":
            return "take_back_one_card"
        if dst[0] == "f":
            return "foundation_one_card"
        pile = self.piles[src]
        if n > len(pile) - self.down[src]:
            return "face_down"
        if dst[0] != "t" or self.piles[dst] or pile[-n].rank != KING:
            return "one_card_at_a_time"
        return None if self.run_length(src) >= n else "not_a_run"

    def group_counts(self, src: str) -> Iterator[int]:
        pile = self.piles[src]
        length = self.run_length(src)
        # In a descending run the king can only be its deepest card.
        if length > 1 and pile[-length].rank == KING:
            yield length

    def points(self, src: str, dst: str, card: Card, turned: bool) -> tuple[int, bool]:
        delta, marked = 0, False
        if dst[0] == "f" and card.id not in self.scored:
            delta, marked = FOUNDATION_POINTS, True
        if src == "w" and dst[0] == "t":
            delta += WASTE_TO_COLUMN_POINTS
        if turned:
            delta += FACE_DOWN_POINTS
        return delta, marked

    def may_finish(self) -> bool:
        # Auto-finish waits until nothing is hidden or still to draw: no face-down
        # card, stock and waste empty (issue 15). Its moves then name no card the
        # player has not seen, and every column is a run, so it always finishes.
        return not (self.piles["s"] or self.piles["w"] or any(self.down.values()))

    def sources(self) -> tuple[str, ...]:
        return (*self.columns, "w", *self.foundations)

    def stock_refusal(self) -> str | None:
        return None if self.piles["s"] or self.piles["w"] else "stock_empty"  # C15

    def play_stock(self) -> Step:
        stock, waste = self.piles["s"], self.piles["w"]
        if stock:
            waste.append(stock.pop())
            return Step(Stock(), 0)
        # A new pass turns the waste over: the first card drawn in this pass is the
        # first card drawn in the previous one (C15). Passes are free (A, C3).
        stock.extend(reversed(waste))
        waste.clear()
        return Step(Stock(), 0, passed=True)

    def unplay_stock(self, step: Step) -> None:
        stock, waste = self.piles["s"], self.piles["w"]
        if step.passed:
            waste.extend(reversed(stock))
            stock.clear()
        else:
            stock.append(waste.pop())


EASY_HARP = GameSpec(
    prefix=EasyHarp.game,
    title=gettext_noop("Easy Harp"),
    engine=EasyHarp,
    solver=solve_easy_harp,
    icon="♠♥♦♣",
    # The solver (which knows every card) needs 4 to 7 passes and 76-90 % progress
    # moves on the deals measured; a player who looks and explores needs more of both.
    never_looked=NeverLooked(max_passes=8, min_progress=0.75),
    variants=(
        VariantSpec(
            letter="N",
            name=gettext_noop("Easy Harp"),
            tab=gettext_noop("Easy Harp"),
            choice="",
            # ``bench/solver.py``: deals are solved in a median of 3k positions,
            # the slowest of 50 in 50k.
            effort=Effort(nodes=60_000, candidates=20, seconds=60),
            levels=(0.469, 0.504, 0.528, 0.573),
        ),
    ),
)
"""Easy Harp's declaration (``spec.py``): one variant, ``EH1-N``."""
