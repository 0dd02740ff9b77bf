"""The Easy Harp solver's best-first search: :class:`Params`, the weights of its cost,
and :class:`_Search`, one search with one set of them: the estimate of the work left, what
makes two positions the same, the moves it tries (and why each pruned one is left out),
and the search itself. :func:`searched` states that pruning on the engine's position for
the tests. ``easy_harp.py`` runs several of these searches in turn.
"""

from __future__ import annotations

import heapq
from bisect import bisect_left
from collections.abc import Callable
from typing import NamedTuple

from ..actions import Move
from ..base import Game
from ..cards import KING as KING_RANK
from . import Budget
from .easy_harp_position import (
    KING,
    N_CARDS,
    RANK,
    RED,
    SPOT,
    Link,
    State,
    Step,
    _Work,
    builds,
    safe,
    spot_for,
)


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
