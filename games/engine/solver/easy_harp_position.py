"""The Easy Harp solver's position and its moves, under both the search and the line's
shortening: the cards as numbers and the piles a step names, the rules they both read
(:func:`builds`, :func:`spot_for`, :func:`safe`), :class:`State`, and :class:`_Work`, which
makes one search move on a copy of a position, with the stock taps it needs and the cards
sent home on the way, and settles the result. ``easy_harp.py`` says how the solver uses
them.
"""

from __future__ import annotations

from bisect import bisect_left
from typing import NamedTuple, TypeAlias

from ..cards import CARDS, Suit
from ..cards import KING as KING_RANK

KING = KING_RANK - 1
"""``rank - 1`` of a king."""
N_CARDS = len(CARDS)
"""Both decks. This and the columns are ``EasyHarp``'s (which imports this module for its
declaration, so it cannot be imported here); ``tests/games/engine/solver/test_moves.py`` checks."""
N_COLUMNS = 9
WASTE = N_COLUMNS
"""Piles in a :data:`Step`: columns 0–8, the waste 9, foundation spot ``f`` (0–7) ``SPOT + f``."""
SPOT = WASTE + 1
HOME = SPOT
"""The target of an :data:`Op` going to a foundation (the spot is chosen on replay)."""

RANK = [c.rank - 1 for c in CARDS[:52]]
SUIT = [int(c.suit) for c in CARDS[:52]]
RED = [c.red for c in CARDS[:52]]
OTHER_SUITS = [tuple(int(s) for s in Suit if s.red is not c.red) for c in CARDS[:52]]
"""The suits of the other colour. Foundation spots ``s`` and ``s + 4`` hold suit ``s``:
f1–f8 are ♠ ♥ ♦ ♣ ♠ ♥ ♦ ♣ (C7, ``EasyHarp.foundation_suits``)."""

Step = tuple[int, int, int, int]
"""``(taps, source, target, count)``: tap the stock ``taps`` times, then make the move."""
Op = tuple[int, int, int, int]
"""``(source, target, count, card)``: a move without its taps, naming its (lowest) card;
a target of :data:`HOME` is whichever foundation spot takes the card."""
Link: TypeAlias = "tuple[list[Step], Link] | None"
"""The steps that led to a position, newest first, as a chain shared between positions."""


def builds(card: int, top: int) -> bool:
    """May ``card`` go onto ``top``? "A card goes onto a face-up card of the opposite colour
    and exactly one rank higher" (A)."""
    return RED[card] is not RED[top] and RANK[top] == RANK[card] + 1


def spot_for(found: tuple[int, ...] | list[int], card: int) -> int:
    """The first foundation spot that accepts ``card`` (C7), or -1."""
    s = SUIT[card]
    rank = RANK[card]
    if found[s] == rank:
        return s
    if found[s + 4] == rank:
        return s + 4
    return -1


def safe(found: tuple[int, ...] | list[int], card: int) -> bool:
    """Can ``card`` go home without the search ever missing it?

    Only a card of the other colour one rank lower may build on it (A), so once those four
    (two suits, two decks) are home nothing can need it in a column, and the search never
    takes cards back from a foundation. An ace never needs a two: "an ace goes into an empty
    spot of its own suit", and each suit has two spots for its two aces.
    """
    rank = RANK[card]
    if rank <= 1:
        return True
    a, b = OTHER_SUITS[card]
    return found[a] >= rank and found[a + 4] >= rank and found[b] >= rank and found[b + 4] >= rank


class State(NamedTuple):
    cols: tuple[bytes, ...]
    """Each column's cards, bottom to top."""
    down: tuple[int, ...]
    """Face-down cards at the bottom of each column."""
    found: tuple[int, ...]
    """Cards on each foundation spot f1–f8."""
    deck: bytes
    """The positions in the draw sequence of the cards still in the stock or on the waste,
    ascending."""
    ptr: int
    """Positions below ``ptr`` are on the waste (the highest is its top), the others in the
    stock."""


class _Work:
    """A mutable copy of a position while one child is built, and the steps that build it."""

    __slots__ = ("auto", "cols", "deck", "down", "found", "ptr", "seq", "steps", "taps")

    def __init__(self, st: State, seq: bytes, auto: bytes | None) -> None:
        self.cols = list(st.cols)
        self.down = list(st.down)
        self.found = list(st.found)
        self.deck = st.deck
        self.ptr = st.ptr
        self.seq = seq
        self.auto = auto
        """The positions of the cards that may go home safely when the taps pass over them
        (None: look at every card)."""
        self.steps: list[Step] = []
        self.taps = 0

    def taps_to(self, pos: int) -> int:
        """Taps that bring the card at ``pos`` to the waste top."""
        deck = self.deck
        idx = bisect_left(deck, self.ptr)
        k = bisect_left(deck, pos)
        if k >= idx:
            return k - idx + 1
        if k == idx - 1:
            return 0
        return len(deck) - idx + 1 + k + 1  # to the end, a new pass, then up to it

    def _passed(self, pos: int, pending: int) -> int:
        """The taps drew the card at ``pos`` on their way: send it home if that is safe (left
        on the waste, it would cost a whole pass later)."""
        card = self.seq[pos]
        found = self.found
        spot = spot_for(found, card)
        if spot < 0 or not safe(found, card):
            return pending
        found[spot] += 1
        k = bisect_left(self.deck, pos)
        self.deck = self.deck[:k] + self.deck[k + 1 :]
        self.steps.append((pending, WASTE, SPOT + spot, 1))
        self.auto = None  # the foundations changed: look at every card from now on
        return 0

    def draw(self, pos: int) -> int:
        """Tap until the card at ``pos`` is the waste top; return the taps not yet emitted."""
        deck = self.deck
        ptr = self.ptr
        idx = bisect_left(deck, ptr)
        k = bisect_left(deck, pos)
        self.ptr = pos + 1
        if k == idx - 1:
            return 0
        wrap = k < idx
        taps = len(deck) - idx + k + 2 if wrap else k - idx + 1
        self.taps += taps
        auto = self.auto
        if auto is not None:
            if wrap:
                hit = bool(auto) and (auto[-1] >= ptr or auto[0] < pos)
            else:
                a = bisect_left(auto, ptr)
                hit = a < len(auto) and auto[a] < pos
            if not hit:
                return taps
        pending = 0
        for q in deck[idx:] if wrap else deck[idx:k]:
            pending += 1
            if self.auto is None or q in self.auto:
                pending = self._passed(q, pending)
        if wrap:
            pending += 1  # the tap that starts a new pass (C15)
            for q in deck[:k]:
                pending += 1
                if self.auto is None or q in self.auto:
                    pending = self._passed(q, pending)
        return pending + 1

    def from_deck(self, pos: int, dst: int) -> None:
        taps = self.draw(pos)
        k = bisect_left(self.deck, pos)
        self.deck = self.deck[:k] + self.deck[k + 1 :]
        if dst >= SPOT:
            self.found[dst - SPOT] += 1
        else:
            self.cols[dst] += self.seq[pos : pos + 1]
        self.steps.append((taps, WASTE, dst, 1))

    def from_column(self, i: int, dst: int, n: int = 1) -> None:
        col = self.cols[i]
        self.cols[i] = col[:-n]
        # "A face-down card that becomes uncovered turns face up by itself" (A).
        if self.down[i] and self.down[i] == len(col) - n:
            self.down[i] -= 1
        if dst >= SPOT:
            self.found[dst - SPOT] += 1
        else:
            self.cols[dst] += col[-n:]
        self.steps.append((0, i, dst, n))

    def settle(self) -> State:
        """Send home every column top and waste top that may go safely (:func:`safe`): it
        can only help, so the search need not try both."""
        cols, down, found, steps, seq = self.cols, self.down, self.found, self.steps, self.seq
        changed = True
        while changed:
            changed = False
            for i in range(N_COLUMNS):
                col = cols[i]
                n = len(col)
                while n:
                    card = col[n - 1]
                    spot = spot_for(found, card)
                    if spot < 0 or not safe(found, card):
                        break
                    n -= 1
                    found[spot] += 1
                    steps.append((0, i, SPOT + spot, 1))
                    if down[i] and down[i] == n:
                        down[i] -= 1
                if n != len(col):
                    cols[i] = col[:n]
                    changed = True
            while True:
                deck = self.deck
                idx = bisect_left(deck, self.ptr) - 1
                if idx < 0:
                    break
                card = seq[deck[idx]]
                spot = spot_for(found, card)
                if spot < 0 or not safe(found, card):
                    break
                found[spot] += 1
                self.deck = deck[:idx] + deck[idx + 1 :]
                steps.append((0, WASTE, SPOT + spot, 1))
                changed = True
        return State(tuple(cols), tuple(down), tuple(found), self.deck, self.ptr)
