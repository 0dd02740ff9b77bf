"""The Easy Harp solver (RULES.md Part A): best-first searches with whole-deal knowledge.

:func:`solve_easy_harp` searches from the game's current position, seeing every face-down
card and the stock order, and returns a line of the engine's own resolved actions
(``Move`` and ``Stock``) that wins. The line becomes the daily deal's par, so after the
first win is found the solver spends a little more effort making it short.

**The position.** Cards are numbers ``suit * 13 + rank - 1`` (the engine's id modulo 52;
twins are the same number). A :class:`State` holds the columns (``bytes``, bottom to
top), their face-down counts, the eight foundation heights, and the stock and waste read
as one *draw sequence*: the waste bottom to top, then the stock in the order it will be
drawn. Drawing never reorders that sequence and a new pass restarts it from the first
card (C15), so the stock and the waste are just the sequence positions still there
(``deck``) plus a pointer (``ptr``): the positions below it are on the waste.

Since "passes are unlimited and free" (A), every card of the sequence can be brought to
the waste top at any time; only the number of taps differs. So one search move is "tap
until card X shows, then play it", emitting the ``Stock()`` actions it needs, and the
stock is no part of what makes two positions the same (see :meth:`_Search.key`).

**The search.** Best-first: the position expanded next is the one with the lowest
``cost + lam * actions so far``, where the cost estimates the work left
(:meth:`_Search.cost`): face-down cards, cards piled on them, cards out of order, cards
not home, and above all cards sent home while a card of the other colour one rank lower
is still in a column (it may need that card to build on). The moves tried are pruned
hard (each pruning says why next to it), which makes the search incomplete: it never
takes a card back from a foundation, for one, which the app allows (A, "Taking back
from a foundation"). An exhausted search therefore proves nothing and the solver
answers ``UNKNOWN``, never ``UNWINNABLE``.

:func:`searched` states the pruning of the moves from a column once, on the engine's
position; ``tests/games/engine/solver/test_moves.py`` checks on random positions that the
search makes exactly those of the engine's legal moves, and that every child, its stock
taps included, is the engine's position after the same actions.

A search that goes wrong on a deal goes wrong early and stays lost however long it
runs, while most deals fall in a few hundred positions; so several searches with
differently weighted costs (:data:`PORTFOLIO`) take turns, each with a node cap that
doubles every round, until one wins or the budget is spent.

**The line.** Every action counts towards the par, stock taps included (C5), and taps
are most of a raw line. So, cheaply (:func:`_shorten`): the moves are put in an order
that needs fewer taps (two moves on different piles commute, :func:`_reorder`); a card
that a later move takes from the stock is played as soon as the taps pass over it, when
nothing in between must come first (:func:`_replay`); and a card parked on a column and
moved on untouched goes straight to where it ends (:func:`_detours`). Then, within the
budget, one more search that weighs the actions played as much as the work left
(:data:`IMPROVE`) and drops every line not shorter than the first. The line returned is
replayed through :meth:`Game.apply` on a copy of the game first.
"""

from __future__ import annotations

import heapq
import time
from bisect import bisect_left
from collections.abc import Callable
from typing import NamedTuple, TypeAlias

from ..actions import Move, Stock
from ..base import Game
from ..cards import CARDS, Suit
from ..cards import KING as KING_RANK
from ..errors import EngineError
from . import Budget, Outcome, Solution

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


class Params(NamedTuple):
    """The weights of :meth:`_Search.cost` and how the search uses it."""

    fd: int = 10
    """Per face-down card."""
    up: int = 3
    """Per face-up card on face-down cards, or on a card it does not build on."""
    dis: int = 2
    """Per card below such a misfit in a column with no face-down card."""
    col: int = 1
    """Per card in an ordered column (each card builds on the one below)."""
    king: int = 1
    """Off for an ordered column headed by a king: it never needs to move."""
    empty: int = 5
    """Off per empty column: room for a king."""
    out: int = 2
    """Per card not home."""
    harm: int = 3
    """Per card home while a card that might build on it is still in a column."""
    chain: int = 6
    """At most this many stock cards are laid to give one card a place."""
    dirty: bool = False
    """Lay such cards on any column (not only on ordered ones)."""
    lam: float = 0.3
    """Weight of the actions already played against the estimate of the work left."""


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


def _run_length(col: bytes, down: int) -> int:
    """Face-up cards at the top of ``col`` each building on the one below (0 if empty)."""
    n = len(col)
    if not n:
        return 0
    k = 1
    while k < n - down and builds(col[-k], col[-k - 1]):
        k += 1
    return k


class _Search:
    """One best-first search with one set of :class:`Params`."""

    def __init__(self, seq: bytes, params: Params) -> None:
        self.seq = seq
        self.p = params
        self.column_costs: dict[tuple[bytes, int], int] = {}

    def column_cost(self, col: bytes, down: int) -> int:
        key = (col, down)
        cost = self.column_costs.get(key)
        if cost is None:
            p = self.p
            n = len(col)
            run = _run_length(col, down)
            if not n:
                cost = -p.empty
            elif down:
                # Every face-up card here must leave, one at a time (A), to turn the next one.
                cost = p.fd * down + p.up * (n - down)
            elif run < n:
                cost = p.dis * (n - run) + p.up * run
            else:
                cost = p.col * n - (p.king if RANK[col[0]] == KING else 0)
            self.column_costs[key] = cost
        return cost

    def cost(self, st: State) -> int:
        """The estimate of the work left (lower is better)."""
        p = self.p
        found = st.found
        total = 0
        column_cost = self.column_cost
        in_columns = [0] * 26  # by colour (red 13..25) and rank
        for col, down in zip(st.cols, st.down, strict=True):
            total += column_cost(col, down)
            for card in col:
                in_columns[RED[card] * 13 + RANK[card]] += 1
        # A card home is lost as a place to build on: count those that a card still in a
        # column (of the other colour, one rank lower) might want. Rushing one suit home
        # is what leaves a buried card with nowhere to go.
        harm = 0
        for f in range(8):
            height = found[f]
            other = 0 if f % 4 in (1, 2) else 13
            for rank in range(2, height):
                if in_columns[other + rank - 1]:
                    harm += 1
        return total + p.out * (N_CARDS - sum(found)) + p.harm * harm

    @staticmethod
    def key(st: State) -> bytes:
        """What makes two positions the same for the search.

        Twins are the same number: every card is "present twice" (A) and the two play
        alike. Columns are sorted: no rule the search uses depends on a column's place.
        The two spots of a suit are sorted: each takes only its suit (A, C7). The stock
        and the waste are left out: every card there can be brought up at any time
        ("passes are unlimited and free", A), and which cards they hold follows from the
        rest, since every card is in a column, home, or there.
        """
        parts = sorted([bytes((down,)) + col for col, down in zip(st.cols, st.down, strict=True)])
        f = st.found
        homes = bytes(h for s in range(4) for h in sorted((f[s], f[s + 4])))
        return b"\xff".join(parts) + b"\xfe" + homes

    def children(self, st: State) -> list[tuple[list[Step], State, int]]:
        """The positions one search move away: ``(steps, position, taps)``."""
        cols, down, found, deck, ptr = st
        seq = self.seq
        home_now = {
            (f % 4) * 13 + found[f]
            for f in range(8)
            if found[f] < 13 and safe(found, (f % 4) * 13 + found[f])
        }
        auto = bytes(q for q in deck if seq[q] in home_now) if home_now else b""
        runs = [_run_length(col, d) for col, d in zip(cols, down, strict=True)]
        # "An empty column accepts only a king" (A): all empty columns are alike, try one.
        first_empty = next((i for i, col in enumerate(cols) if not col), -1)
        out: list[tuple[list[Step], State, int]] = []

        def add(w: _Work) -> None:
            out.append((w.steps, w.settle(), w.taps))

        for i, col in enumerate(cols):
            n = len(col)
            if not n:
                continue
            card = col[-1]
            run = runs[i]
            spot = spot_for(found, card)
            if spot >= 0:
                w = _Work(st, seq, auto)
                w.from_column(i, SPOT + spot)
                add(w)
            if first_empty >= 0:
                # A king, or "a run headed by a king ... can be moved as a whole into an
                # empty column" (A) -- unless it is the whole column: that changes nothing.
                if RANK[card] == KING:
                    if n > 1:
                        w = _Work(st, seq, auto)
                        w.from_column(i, first_empty)
                        add(w)
                elif run > 1 and RANK[col[-run]] == KING and run < n:
                    w = _Work(st, seq, auto)
                    w.from_column(i, first_empty, run)
                    add(w)
            # Moving a card between columns pays only if it uncovers something: a face-down
            # card, a card it does not build on, an empty column (if it is alone), or a card
            # that can then go home. A card resting on its builder in an ordered column stays.
            wants = down[i] > 0 or run < n or (n == 1 and RANK[card] != KING)
            if not wants and n > 1 and spot_for(found, col[-2]) >= 0:
                wants = True
            if wants and RANK[card] != KING:
                self._places(st, i, runs=runs, first_empty=first_empty, auto=auto, add=add)
        # A stock card goes home by itself (as the taps pass it) when that is safe; any other
        # card that a foundation takes is a move of its own. Of twins, the nearer one.
        if deck:
            idx = bisect_left(deck, ptr)
            tried: set[int] = set()
            for pos in deck[idx - 1 : idx] + deck[idx:] + deck[: max(idx - 1, 0)]:
                card = seq[pos]
                if card in tried:
                    continue
                tried.add(card)
                spot = spot_for(found, card)
                if spot >= 0:
                    w = _Work(st, seq, auto)
                    w.from_deck(pos, SPOT + spot)
                    add(w)
        return out

    def _places(
        self,
        st: State,
        i: int,
        *,
        runs: list[int],
        first_empty: int,
        auto: bytes,
        add: Callable[[_Work], None],
    ) -> None:
        """Give the top card of column ``i`` a place on another column.

        Between columns "only the top card may move" (A), so the card needs a card of the
        other colour one rank higher on top of a column. If none is there, stock cards can
        lay the missing links: any card of the stock can be brought up, so a chain
        (black 9, red 8, black 7 …) is laid from a column top (or from a king put into an
        empty column) down to the card's rank, the twins nearest in taps first. Stock cards
        never go to a column otherwise: in the stock they are just as available.
        """
        cols, down = st.cols, st.down
        seq = self.seq
        p = self.p
        card = cols[i][-1]
        rank = RANK[card]
        red = RED[card]
        for j, other in enumerate(cols):
            if j == i:
                continue
            if other:
                anchor = other[-1]
                links = RANK[anchor] - rank - 1
                # The chain alternates colours, so its parity must fit (A).
                if links < 0 or links > p.chain or (RED[anchor] is not red) != (links % 2 == 0):
                    continue
                # Links laid on a column still to be dug out would only bury it deeper.
                if links and not p.dirty and (down[j] or runs[j] < len(other)):
                    continue
                q, qred = RANK[anchor] - 1, not RED[anchor]
            elif j == first_empty:
                links = KING - rank
                if links > p.chain:
                    continue
                q, qred = KING, red if (KING - rank) % 2 == 0 else not red
            else:
                continue
            w = _Work(st, seq, auto)
            while q > rank:
                best, best_taps = -1, 1 << 30
                for pos in w.deck:
                    v = seq[pos]
                    if RANK[v] == q and RED[v] is qred:
                        taps = w.taps_to(pos)
                        if taps < best_taps:
                            best, best_taps = pos, taps
                if best < 0:
                    break
                w.from_deck(best, j)
                q -= 1
                qred = not qred
            else:
                w.from_column(i, j)
                add(w)

    def run(
        self, root: State, budget: Budget, expanded: int, cap: int, bound: int = 1 << 30
    ) -> tuple[list[Step] | None, int, bool]:
        """Search from ``root``: ``(steps that win or None, nodes expanded so far, whether
        the search ran out of positions)``. ``expanded`` counts from earlier searches (the
        budget is shared); this one stops after ``cap`` more, and skips lines of ``bound``
        actions or more."""
        seen = {self.key(root)}
        heap: list[tuple[float, int, State, Link, int]] = [(0.0, 0, root, None, 0)]
        tie = 0
        lam = self.p.lam
        limit = expanded + cap
        while heap:
            if expanded >= limit or budget.exhausted(expanded):
                return None, expanded, False
            _, _, st, link, actions = heapq.heappop(heap)
            expanded += 1
            for steps, child, taps in self.children(st):
                g = actions + taps + len(steps)
                home = sum(child.found)
                # Each card not home needs a move yet.
                if g + N_CARDS - home >= bound:
                    continue
                if home == N_CARDS:
                    line = steps
                    while link is not None:
                        line = link[0] + line
                        link = link[1]
                    return line, expanded, False
                k = self.key(child)
                if k in seen:
                    continue
                seen.add(k)
                tie -= 1  # among equals, the newest first: it goes deeper
                heapq.heappush(heap, (self.cost(child) + lam * g, tie, child, (steps, link), g))
        return None, expanded, True


def searched(game: Game, move: Move) -> bool:
    """Whether the search plays ``move``, a legal engine move from a column, as a move of
    its own from ``game``'s position, without stock taps before it: the pruning of
    :meth:`_Search.children` stated on the engine's position.

    ``tests/games/engine/solver/test_moves.py`` checks that the children's first steps from a
    column are exactly the legal moves this accepts. Left out: a second foundation spot
    that also takes the card (the first one is used, C7), a second empty column (all are
    alike), a whole column into an empty one (nothing changes), a king onto a card (never
    legal), and a move between columns that uncovers nothing (see ``children``). The
    moves from the stock and the waste are the search's own compounds ("tap until card X
    shows, then play it") and are checked by replaying them through the engine.
    """
    src, dst, n = move.source, move.target, move.count
    if src[0] != "t":
        return False
    pile = game.piles[src]
    if dst[0] == "f":
        return dst == game.foundation_for(pile[-1])
    if not game.piles[dst]:
        return dst == next(t for t in game.columns if not game.piles[t]) and n < len(pile)
    run = game.run_length(src)
    return bool(
        game.down[src]
        or run < len(pile)
        or (len(pile) == 1 and pile[-1].rank != KING_RANK)
        or (len(pile) > 1 and game.foundation_for(pile[-2]) is not None)
    )


# --- making the line shorter -------------------------------------------------------------


def _length(steps: list[Step]) -> int:
    """Actions in a line: every move and every tap counts (C5)."""
    return sum(taps + 1 for taps, *_ in steps)


def _tap_cost(deck: list[int], idx: int, k: int) -> int:
    """Taps that bring ``deck[k]`` to the waste top; ``idx`` is the first stock card's index."""
    if k >= idx:
        return k - idx + 1
    return 0 if k == idx - 1 else len(deck) - idx + k + 2


def _ops(seq: bytes, start: State, steps: list[Step]) -> list[Op]:
    """The moves of ``steps`` without their taps, each naming its card."""
    cols = [bytearray(c) for c in start.cols]
    deck = list(start.deck)
    ptr = start.ptr
    ops: list[Op] = []
    for taps, src, dst, n in steps:
        for _ in range(taps):
            idx = bisect_left(deck, ptr)
            ptr = deck[idx] + 1 if idx < len(deck) else 0  # a draw, or a new pass (C15)
        if src == WASTE:
            moved = seq[deck.pop(bisect_left(deck, ptr) - 1)].to_bytes(1, "big")
        else:
            moved = bytes(cols[src][-n:])
            del cols[src][-n:]
        if dst < SPOT:
            cols[dst] += moved
        ops.append((src, min(dst, HOME), n, moved[0]))
    return ops


class _Invalid(Exception):
    """A rebuilt line breaks a rule; the line it came from is kept."""


def _replay(seq: bytes, start: State, ops: list[Op]) -> list[Step] | None:
    """The steps of ``ops`` played in order with the fewest taps, or None if they break a
    rule (then the caller keeps the line it had).

    Whenever the taps pass over a card that a later move takes from the waste, that move
    is played at once if nothing in between stands in its way: for a card going home, the
    moves home of its suit in between still find their spots; for a card going onto a
    column, no move in between touches that column.
    """
    cols = [bytearray(c) for c in start.cols]
    found = list(start.found)
    deck = list(start.deck)
    ptr = start.ptr
    done = [False] * len(ops)
    pending_for: dict[int, list[int]] = {}  # card -> its waste moves, the next one last
    for j in range(len(ops) - 1, -1, -1):
        if ops[j][0] == WASTE:
            pending_for.setdefault(ops[j][3], []).append(j)
    out: list[Step] = []

    def can_pull(i: int, j: int, card: int) -> bool:
        dst = ops[j][1]
        if dst == HOME:
            s = SUIT[card]
            heights = [found[s], found[s + 4]]
            between = [ops[k][3] for k in range(i, j) if not done[k] and ops[k][1] == HOME]
            for other in [card, *between]:
                if SUIT[other] != s:
                    continue
                if RANK[other] not in heights:
                    return False
                heights[heights.index(RANK[other])] += 1
            return True
        col = cols[dst]
        if not (builds(card, col[-1]) if col else RANK[card] == KING):
            return False
        return not any(not done[k] and dst in (ops[k][0], ops[k][1]) for k in range(i, j))

    def place(card: int, dst: int) -> int:
        if dst == HOME:
            f = spot_for(found, card)
            if f < 0:
                raise _Invalid
            found[f] += 1
            return SPOT + f
        col = cols[dst]
        if not (builds(card, col[-1]) if col else RANK[card] == KING):
            raise _Invalid
        col.append(card)
        return dst

    try:
        for i, (src, dst, n, card) in enumerate(ops):
            if done[i]:
                continue
            pending = 0
            if src == WASTE:
                if pending_for[card].pop() != i:
                    raise _Invalid
                idx = bisect_left(deck, ptr)
                costs = [(_tap_cost(deck, idx, k), k) for k, q in enumerate(deck) if seq[q] == card]
                if not costs:
                    raise _Invalid
                taps, best = min(costs)
                target = deck[best]
                if taps:
                    passed = deck[idx:best] if best >= idx else [*deck[idx:], -1, *deck[:best]]
                    for q in passed:
                        pending += 1
                        if q < 0:
                            continue  # the tap that starts a new pass
                        other = seq[q]
                        queue = pending_for.get(other)
                        if queue and can_pull(i, queue[-1], other):
                            j = queue.pop()
                            done[j] = True
                            deck.remove(q)
                            out.append((pending, WASTE, place(other, ops[j][1]), 1))
                            pending = 0
                    pending += 1
                deck.remove(target)
                ptr = target + 1
            else:
                col = cols[src]
                if len(col) < n or col[-n] != card:
                    raise _Invalid
                moved = bytes(col[-n:])
                del col[-n:]
                if n > 1:
                    if cols[dst]:
                        raise _Invalid
                    cols[dst] += moved
                    out.append((0, src, dst, n))
                    continue
            out.append((pending, src, place(card, dst), 1))
    except _Invalid:
        return None
    return out


def _reorder(seq: bytes, start: State, ops: list[Op]) -> list[Op]:
    """The same moves in an order that needs fewer taps.

    A move's legality depends only on its source's top and its target (a column's top, or
    the foundations of one suit), so two moves on different piles can be swapped: the
    moves form a partial order in which each waits only for the earlier moves on its
    piles. Among the moves whose turn has come, the one needing the fewest taps is played
    (moves between columns need none), the earliest of equals.
    """
    waiting = [0] * len(ops)
    after: list[list[int]] = [[] for _ in ops]
    last: dict[int, int] = {}
    for k, (src, dst, _, card) in enumerate(ops):
        piles = [20 + SUIT[card] if dst == HOME else dst]
        if src != WASTE:
            piles.append(src)
        for pile in piles:
            j = last.get(pile)
            if j is not None and k not in after[j]:
                after[j].append(k)
                waiting[k] += 1
            last[pile] = k
    ready = [k for k in range(len(ops)) if not waiting[k]]
    deck = list(start.deck)
    ptr = start.ptr
    order: list[Op] = []
    while ready:
        idx = bisect_left(deck, ptr)
        nearest: dict[int, tuple[int, int]] = {}
        for k, q in enumerate(deck):
            cost = _tap_cost(deck, idx, k)
            if seq[q] not in nearest or cost < nearest[seq[q]][0]:
                nearest[seq[q]] = (cost, q)
        best, best_cost, best_pos = -1, 1 << 30, -1
        for k in ready:
            cost, pos = nearest.get(ops[k][3], (1 << 29, -1)) if ops[k][0] == WASTE else (0, -1)
            if (cost, k) < (best_cost, best):
                best, best_cost, best_pos = k, cost, pos
        if best_pos >= 0:
            deck.remove(best_pos)
            ptr = best_pos + 1
        ready.remove(best)
        order.append(ops[best])
        for k in after[best]:
            waiting[k] -= 1
            if not waiting[k]:
                ready.append(k)
    return order


def _detours(ops: list[Op]) -> list[list[Op]]:
    """The line without one detour each: a card moved onto a column and later moved on from
    there, nothing touching either column in between, makes one move (none if it comes
    back where it was)."""
    lines: list[list[Op]] = []
    for i, (a, b, n, card) in enumerate(ops):
        if n != 1 or b == HOME:
            continue
        for j in range(i + 1, len(ops)):
            src, dst, m, other = ops[j]
            if b in (src, dst):
                if src == b and other == card and m == 1:
                    shorter = ops[:i] + ops[i + 1 : j]
                    if dst != a:
                        shorter.append((a, dst, 1, card))
                    lines.append(shorter + ops[j + 1 :])
                break
            if a != WASTE and a in (src, dst):
                break
    return lines


def _shorten(seq: bytes, start: State, steps: list[Step]) -> list[Step]:
    """A line as short as cheap rewriting makes it (see the module's docstring): reorder,
    replay, drop a detour, and again while that pays, within :data:`SHORTEN_REPLAYS`
    replays (a count, not a time, so that a deal's par is the same on every machine)."""
    best = steps
    replays = 0
    improved = True
    while improved and replays < SHORTEN_REPLAYS:
        improved = False
        ops = _ops(seq, start, best)
        for candidate in [ops, _reorder(seq, start, ops), *_detours(ops)]:
            for version in (candidate, _reorder(seq, start, candidate)):
                replays += 1
                shorter = _replay(seq, start, version)
                if shorter is not None and _length(shorter) < _length(best):
                    best = shorter
                    improved = True
            if improved or replays >= SHORTEN_REPLAYS:
                break
    return best


# --- the solver --------------------------------------------------------------------------

PORTFOLIO = (
    Params(),
    Params(fd=15),
    Params(lam=0.1),
    Params(harm=2),
    Params(fd=15, dirty=True),
    Params(empty=2),
    Params(out=4),
)
"""The searches that take turns until one wins (each wins deals the others lose)."""
FIRST_CAP = 500
"""Positions each search of :data:`PORTFOLIO` may expand in the first round (doubled each
round): most deals fall in a few hundred."""
IMPROVE = Params(lam=1.0)
"""The search that looks for a shorter line once one is found."""
IMPROVE_NODES = 3000
SHORTEN_REPLAYS = 300


def _start(game: Game) -> tuple[bytes, State]:
    """The draw sequence and the game's position."""
    waste = [c.id % 52 for c in game.piles["w"]]
    stock = [c.id % 52 for c in reversed(game.piles["s"])]  # the top is drawn first
    seq = bytes(waste + stock)
    start = State(
        tuple(bytes(c.id % 52 for c in game.piles[t]) for t in game.columns),
        tuple(game.down[t] for t in game.columns),
        tuple(len(game.piles[f]) for f in game.foundations),
        bytes(range(len(seq))),
        len(waste),
    )
    return seq, start


def _actions(game: Game, steps: list[Step]) -> tuple[Move | Stock, ...]:
    def pile(x: int) -> str:
        if x < N_COLUMNS:
            return game.columns[x]
        return "w" if x == WASTE else game.foundations[x - SPOT]

    out: list[Move | Stock] = []
    for taps, src, dst, n in steps:
        out.extend([Stock()] * taps)
        out.append(Move(pile(src), pile(dst), n))
    return tuple(out)


def _wins(game: Game, line: tuple[Move | Stock, ...]) -> bool:
    """Does ``line`` bring every card home through the engine itself (on a copy)?"""
    copy = game.copy()
    try:
        for action in line:
            copy.apply(action)
    except EngineError:
        return False
    return sum(len(copy.piles[f]) for f in copy.foundations) == N_CARDS


def _search(
    game: Game, budget: Budget, portfolio: tuple[Params, ...]
) -> tuple[Outcome, bytes, State, State, list[Step], list[Step], int]:
    """Search ``game``'s position with the searches of ``portfolio`` taking turns (see
    the module): ``(outcome, draw sequence, position, position settled, settling steps,
    steps found, nodes expanded)``, the steps unshortened."""
    seq, start = _start(game)
    w = _Work(start, seq, None)
    root = w.settle()
    first = w.steps
    expanded = 0
    cap = FIRST_CAP
    searching = list(portfolio)
    found: list[Step] | None = [] if sum(root.found) == N_CARDS else None
    while found is None:
        for params in list(searching):
            found, expanded, exhausted = _Search(seq, params).run(root, budget, expanded, cap)
            if found is not None:
                break
            if budget.exhausted(expanded):
                return Outcome.UNKNOWN, seq, start, root, first, [], expanded
            if exhausted:
                searching.remove(params)
        if not searching:
            # Every search ran out of positions; they leave moves out, so this proves
            # nothing (see the module's docstring).
            return Outcome.UNKNOWN, seq, start, root, first, [], expanded
        cap *= 2
    return Outcome.SOLVED, seq, start, root, first, found, expanded


def probe_easy_harp(
    game: Game, budget: Budget, portfolio: tuple[Params, ...] = PORTFOLIO
) -> tuple[Move | Stock, ...] | None:
    """A winning line from ``game``'s position as the searches first find it (not
    shortened: cheap), or None when the budget runs out first. ``games/engine/knew.py``
    asks it many times per game, with one search of :data:`PORTFOLIO` at a time or all."""
    if game.won:
        return ()
    outcome, _, _, _, first, found, _ = _search(game, budget, portfolio)
    return _actions(game, first + found) if outcome is Outcome.SOLVED else None


def solve_easy_harp(game: Game, budget: Budget) -> Solution:
    """Search ``game``'s current position for a win within ``budget`` (see the module)."""
    started = time.perf_counter()

    def answer(outcome: Outcome, line: tuple[Move | Stock, ...], nodes: int) -> Solution:
        return Solution(outcome, line, nodes, time.perf_counter() - started)

    if game.won:
        return answer(Outcome.SOLVED, (), 0)
    outcome, seq, start, root, first, found, expanded = _search(game, budget, PORTFOLIO)
    if outcome is not Outcome.SOLVED:
        return answer(outcome, (), expanded)
    raw = first + found
    best = _shorten(seq, start, raw)
    if not budget.exhausted(expanded):
        shorter, expanded, _ = _Search(seq, IMPROVE).run(
            root, budget, expanded, IMPROVE_NODES, _length(found)
        )
        if shorter is not None:
            shorter = _shorten(seq, start, first + shorter)
            if _length(shorter) < _length(best):
                best = shorter
    line = _actions(game, best)
    if not _wins(game, line):  # pragma: no cover - a bug in the rewriting; keep the search's
        line = _actions(game, raw)
        if not _wins(game, line):
            raise AssertionError(f"the Easy Harp solver found a line that does not win {game.code}")
    return answer(Outcome.SOLVED, line, expanded)
