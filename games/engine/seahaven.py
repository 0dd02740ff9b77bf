"""Seahaven Towers (RULES.md Part B): one deck face up, ten columns, 4, 2 or 1 cells."""

from __future__ import annotations

from collections.abc import Iterator
from typing import ClassVar

from .actions import Move
from .base import Game
from .cards import KING, Card, Suit
from .sentences import Sentence, gettext_noop, ngettext_noop
from .solver.seahaven import solve_seahaven
from .spec import Effort, GameSpec, VariantSpec

FOUNDATION_POINTS = 10


class Seahaven(Game):
    """Seahaven Towers, rules version 1 (``SH1-C4-…``, ``SH1-C2-…``, ``SH1-C1-…``).

    The deal: the 52 shuffled cards are dealt column by column, five to each of
    ``t1``…``t10`` (the fifth card dealt to a column is its top). The 51st card
    goes into ``c1``; the 52nd into ``c2``, or with a single cell onto ``t2``,
    which then holds six cards (B, "Number of cells").

    Scoring (C4): +10 when a card goes onto a foundation, −10 when one is taken
    back; a won game scores 520.

    Dead end (C10): ``dead_end`` is true when no legal move is left but moves
    that change nothing — a card from one cell to another, a whole column into
    another empty column — and take-backs from a foundation onto a column. A
    take-back onto a column never opens anything new: the taken-back card can
    then only return to its foundation (the cells are full, or a column-to-cell
    move would exist) or ride on the group it joined, and any group move it
    joins was already possible for the shorter group without it.
    """

    game = "SH1"
    title = "Seahaven Towers"
    n_cards = 52
    n_columns = 10
    foundation_suits = (Suit.S, Suit.H, Suit.D, Suit.C)  # C7
    reasons: ClassVar[dict[str, Sentence]] = {
        "wrong_build": gettext_noop(
            "In Seahaven Towers a card goes only onto the card of its own suit one rank higher; "
            "%(card)s cannot go onto %(top)s."
        ),
        "kings_only": gettext_noop(
            "An empty column accepts only a king, alone or heading its same-suit run; %(card)s "
            "cannot go there."
        ),
        "not_a_run": gettext_noop(
            "Only a run of one suit in consecutive descending ranks can move as a group."
        ),
        "group_too_large": ngettext_noop(
            "At most %(capacity)s card can move there: (free cells + 1) × 2^(empty columns), "
            "an empty destination column not counted.",
            "At most %(capacity)s cards can move there: (free cells + 1) × 2^(empty columns), "
            "an empty destination column not counted.",
            count="capacity",
        ),
        "cell_occupied": gettext_noop("A cell holds one card, and %(dst)s is occupied."),
        "cell_one_card": gettext_noop("A cell holds one card; a group cannot go into a cell."),
        "no_stock": gettext_noop("Seahaven Towers has no stock: every card is dealt face up."),
        "no_place": gettext_noop(
            "Double tap found no place for %(card)s: no foundation, column, empty column or empty "
            "cell accepts it."
        ),
    }

    def n_cells(self) -> int:
        return SEAHAVEN.variant(self.code.variant).cells

    def worth_proving_lost(self) -> bool:
        """Every cell full: the tight positions where a proof is likely and cheap."""
        return not self.won and all(self.piles[cell] for cell in self.cells)

    def deal(self, cards: list[Card]) -> None:
        for i, column in enumerate(self.columns):
            self.piles[column] = cards[5 * i : 5 * i + 5]
        self.piles["c1"].append(cards[50])
        if len(self.cells) >= 2:
            self.piles["c2"].append(cards[51])
        else:
            self.piles["t2"].append(cards[51])

    def builds_on(self, card: Card, top: Card) -> bool:
        # "The 7♥ goes only onto the 8♥, never onto the 8♦ nor a black 8" (B).
        return top.suit is card.suit and top.rank == card.rank + 1

    def capacity(self, dst: str) -> int:
        """(free cells + 1) × 2^(empty columns), counted before the move; an empty
        destination column does not count (B), the source never does (C17)."""
        free = sum(1 for c in self.cells if not self.piles[c])
        empty = sum(1 for t in self.columns if not self.piles[t])
        if dst[:1] == "t" and not self.piles[dst]:
            empty -= 1
        return (free + 1) << empty

    def group_refusal(self, src: str, dst: str, n: int) -> str | None:
        if src[0] == "f":
            return "take_back_one_card"
        if dst[0] == "f":
            return "foundation_one_card"
        if dst[0] == "c":
            return "cell_one_card"
        pile = self.piles[src]
        if self.run_length(src) < n:
            return "not_a_run"
        head, target = pile[-n], self.piles[dst]
        if not target:
            if head.rank != KING:
                return "kings_only"
        elif not self.builds_on(head, target[-1]):
            return "wrong_build"
        return "group_too_large" if n > self.capacity(dst) else None

    def group_counts(self, src: str) -> Iterator[int]:
        yield from range(2, self.run_length(src) + 1)

    def points(self, src: str, dst: str, card: Card, turned: bool) -> tuple[int, bool]:
        if dst[0] == "f":
            return FOUNDATION_POINTS, False
        if src[0] == "f":
            return -FOUNDATION_POINTS, False
        return 0, False

    def is_dead_end(self) -> bool:
        return not self.won and not any(self.changes_something(m) for m in self.legal_moves)

    def changes_something(self, move: object) -> bool:
        """False for the moves C10 (and the note above) leave out of "a legal move left"."""
        if not isinstance(move, Move):
            return True
        src, dst = move.source[0], move.target[0]
        if src == "c" and dst == "c":
            return False
        if src == "f" and dst == "t":
            return False
        return not (
            src == "t"
            and dst == "t"
            and not self.piles[move.target]
            and move.count == len(self.piles[move.source])
        )


SEAHAVEN = GameSpec(
    prefix=Seahaven.game,
    title=gettext_noop("Seahaven Towers"),
    engine=Seahaven,
    solver=solve_seahaven,
    icon="♠♥",
    # Most 4-cell deals are winnable; with 2 cells about 1 in 10 and with 1 cell
    # about 1 in 50, so the hard variants settle many candidates (mostly by
    # proving them unwinnable) before one is proven winnable. Node budgets from
    # ``bench/solver.py``: the most any of 200 deals needed was 63k positions
    # (4 cells), 3k (2 cells), 1.5k (1 cell).
    variants=(
        VariantSpec(
            letter="C4",
            name=gettext_noop("Seahaven Towers · Easy (4 cells)"),
            tab=gettext_noop("Seahaven · 4 cells"),
            choice=gettext_noop("4 · Easy"),
            effort=Effort(nodes=200_000, candidates=20, seconds=60),
            cells=4,
            levels=(0.234, 0.324, 0.35, 0.404),
        ),
        VariantSpec(
            letter="C2",
            name=gettext_noop("Seahaven Towers · Medium (2 cells)"),
            tab=gettext_noop("Seahaven · 2 cells"),
            choice=gettext_noop("2 · Medium"),
            effort=Effort(nodes=100_000, candidates=200, seconds=60),
            cells=2,
            levels=(0.286, 0.303, 0.351, 0.38),
        ),
        VariantSpec(
            letter="C1",
            name=gettext_noop("Seahaven Towers · Hard (1 cell)"),
            tab=gettext_noop("Seahaven · 1 cell"),
            choice=gettext_noop("1 · Hard"),
            effort=Effort(nodes=100_000, candidates=600, seconds=60),
            cells=1,
            levels=(0.277, 0.35, 0.36, 0.416),
        ),
    ),
)
"""Seahaven Towers' declaration (``spec.py``): 4, 2 or 1 cells, ``SH1-C4``/``C2``/``C1``."""
