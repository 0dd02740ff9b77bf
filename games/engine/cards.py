"""Cards, suits, ranks and the ``AS``/``TH`` notation.

Every physical card has an ``id``: ``deck * 52 + suit * 13 + (rank - 1)``. Easy
Harp plays two decks, so each card exists twice (``deck`` 0 and 1) and the two
twins keep distinct ids — RULES.md C3 scores a card only the first time *that
physical card* reaches a foundation. The 104 cards are built once and shared,
so comparing cards is cheap and a card is never copied.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass

from .errors import MalformedError

RANK_CHARS = "A23456789TJQK"
"""Rank characters, ace (rank 1) to king (rank 13)."""

KING = 13


class Suit(enum.IntEnum):
    """The four suits in foundation order (RULES.md C7: spades, hearts, diamonds, clubs)."""

    S = 0
    H = 1
    D = 2
    C = 3

    @property
    def red(self) -> bool:
        return self in (Suit.H, Suit.D)


@dataclass(frozen=True, slots=True, eq=False)
class Card:
    """One physical card. Use :data:`CARDS` or :meth:`from_id`; never build one by hand."""

    id: int
    rank: int
    suit: Suit
    deck: int
    red: bool
    text: str

    @staticmethod
    def from_id(card_id: int) -> Card:
        return CARDS[card_id]

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card.from_id({self.id})"


def _build(card_id: int) -> Card:
    deck, rest = divmod(card_id, 52)
    suit, rank0 = divmod(rest, 13)
    s = Suit(suit)
    return Card(card_id, rank0 + 1, s, deck, s.red, RANK_CHARS[rank0] + s.name)


CARDS: tuple[Card, ...] = tuple(_build(i) for i in range(104))
"""All 104 physical cards by id (ids 0–51 are the first deck)."""


def parse_card(text: str) -> tuple[int, Suit]:
    """Parse ``"TH"`` → ``(10, Suit.H)``. Raises :class:`MalformedError`."""
    if not isinstance(text, str) or len(text) != 2:
        raise MalformedError(
            "bad_card", f"{text!r} is not a card: write rank then suit, like 'TH'."
        )
    rank = RANK_CHARS.find(text[0].upper())
    suit = "SHDC".find(text[1].upper())
    if rank < 0 or suit < 0:
        raise MalformedError(
            "bad_card", f"{text!r} is not a card: ranks are A23456789TJQK and suits are S H D C."
        )
    return rank + 1, Suit(suit)
