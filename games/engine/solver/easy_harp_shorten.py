"""Making an Easy Harp line shorter once a search has found it: every action counts
towards the par, stock taps included (C5), and taps are most of a raw line. The moves are
put in an order that needs fewer taps (:func:`_reorder`), replayed so that a card a later
move takes from the stock is played as soon as the taps pass over it (:func:`_replay`),
and a card's detour through a column is cut (:func:`_detours`), all within a count of
replays (:func:`_shorten`). It only rewrites a line already found; the search never
calls it.
"""

from __future__ import annotations

from bisect import bisect_left

from .easy_harp_position import (
    HOME,
    KING,
    RANK,
    SPOT,
    SUIT,
    WASTE,
    Op,
    State,
    Step,
    builds,
    spot_for,
)

SHORTEN_REPLAYS = 300


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
