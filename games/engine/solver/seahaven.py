"""Prototype."""

from __future__ import annotations

import time

from ..actions import Move
from ..base import Game
from . import Budget, Outcome, Solution

KING = 12
CELL = -1
EMPTY = -2
HOME = -3

SUCC = [c + 1 if c % 13 != KING else -1 for c in range(52)]
ONE = [bytes([c]) for c in range(52)]
SEP = b"\xff"

Step = tuple[int, int, int]
State = tuple[tuple[bytes, ...], bytes, tuple[int, ...]]


def _run(col: bytes) -> int:
    n = len(col)
    i = n - 1
    while i > 0 and col[i - 1] == col[i] + 1 and col[i] % 13 != KING:
        i -= 1
    return n - i


def _settle(cols: list[bytes], cells: list[int], found: list[int], steps: list[Step]) -> None:
    changed = True
    while changed:
        changed = False
        for i, col in enumerate(cols):
            if not col:
                continue
            n = len(col)
            while n:
                t = col[n - 1]
                s = t // 13
                if found[s] != t % 13:
                    break
                found[s] += 1
                steps.append((t, 1, HOME))
                n -= 1
            if n != len(col):
                cols[i] = col[:n]
                changed = True
        if cells:
            tops = {col[-1]: i for i, col in enumerate(cols) if col}
            for x in list(cells):
                s = x // 13
                if found[s] == x % 13:
                    found[s] += 1
                    cells.remove(x)
                    steps.append((x, 1, HOME))
                    changed = True
                else:
                    i = tops.get(x + 1, -1) if x % 13 != KING else -1
                    if i >= 0:
                        cols[i] += ONE[x]
                        cells.remove(x)
                        steps.append((x, 1, x + 1))
                        del tops[x + 1]
                        tops[x] = i
                        changed = True


def _key(cols: tuple[bytes, ...], cells: bytes) -> bytes:
    return SEP.join(cols) + b"\xfe" + cells


def _score(key: bytes, found: tuple[int, ...] | list[int], free: int, empties: int) -> int:
    score = 1000 * sum(found) + 40 * free + 60 * empties
    for s in range(4):
        f = found[s]
        if f == 13:
            continue
        need = s * 13 + f
        pos = key.find(ONE[need])
        if pos < 0:
            continue
        end = key.find(SEP, pos)
        if end < 0:
            end = key.find(b"\xfe", pos)
        score -= 25 * (end - pos - 1)
    return score


class _Search:
    def __init__(self, n_cells: int, n_cols: int) -> None:
        self.n_cells = n_cells
        self.n_cols = n_cols

    def children(
        self, cols: tuple[bytes, ...], cells: bytes, found: tuple[int, ...]
    ) -> list[tuple[int, bytes, State, tuple[Step, ...]]]:
        free = self.n_cells - len(cells)
        empties = 0
        for col in cols:
            if col:
                break
            empties += 1
        tops = {col[-1]: i for i, col in enumerate(cols) if col}
        out: list[tuple[int, bytes, State, tuple[Step, ...]]] = []
        cap = (free + 1) << empties

        def make(new_cols: list[bytes], new_cells: list[int], steps: list[Step]) -> None:
            nf = list(found)
            _settle(new_cols, new_cells, nf, steps)
            c = tuple(sorted(new_cols))
            cl = bytes(sorted(new_cells))
            key = _key(c, cl)
            e = 0
            for col in c:
                if col:
                    break
                e += 1
            out.append(
                (_score(key, nf, self.n_cells - len(cl), e), key, (c, cl, tuple(nf)), tuple(steps))
            )

        for i, col in enumerate(cols):
            if not col:
                continue
            n = len(col)
            run = _run(col)
            head = col[n - run]
            j = tops.get(head + 1, -1) if head % 13 != KING else -1
            if j >= 0:
                if run <= cap:
                    nc = list(cols)
                    nc[i] = col[: n - run]
                    nc[j] = cols[j] + col[n - run :]
                    make(nc, list(cells), [(head, run, head + 1)])
            else:
                if head % 13 == KING and run < n and empties and run <= (free + 1) << (empties - 1):
                    nc = list(cols)
                    nc[i] = col[: n - run]
                    nc[0] = col[n - run :]
                    make(nc, list(cells), [(head, run, EMPTY)])
                if run <= free:
                    nc = list(cols)
                    nc[i] = col[: n - run]
                    steps = [(col[k], 1, CELL) for k in range(n - 1, n - run - 1, -1)]
                    make(nc, list(cells) + list(col[n - run :]), steps)
        if empties:
            for x in cells:
                if x % 13 == KING:
                    nc = list(cols)
                    nc[0] = ONE[x]
                    ncl = list(cells)
                    ncl.remove(x)
                    make(nc, ncl, [(x, 1, EMPTY)])
        out.sort(key=lambda t: -t[0])
        return out


def solve_seahaven(game: Game, budget: Budget) -> Solution:
    started = time.perf_counter()
    cols_l = [bytes(c.id % 52 for c in game.piles[t]) for t in game.columns]
    cells_l = [game.piles[c][0].id % 52 for c in game.cells if game.piles[c]]
    found_l = [len(game.piles[f]) for f in game.foundations]
    start_steps: list[Step] = []
    _settle(cols_l, cells_l, found_l, start_steps)
    total = 52
    cols = tuple(sorted(cols_l))
    cells = bytes(sorted(cells_l))
    found = tuple(found_l)
    search = _Search(len(game.cells), len(game.columns))

    def finish(outcome: Outcome, steps: list[Step], nodes: int) -> Solution:
        line = _concrete(game, steps) if outcome is Outcome.SOLVED else ()
        return Solution(outcome, line, nodes, time.perf_counter() - started)

    if sum(found) == total:
        return finish(Outcome.SOLVED, start_steps, 0)
    seen = {_key(cols, cells)}
    expanded = 1
    stack = [iter(search.children(cols, cells, found))]
    path: list[tuple[Step, ...]] = [tuple(start_steps)]
    while stack:
        for _score, key, state, steps in stack[-1]:
            if key in seen:
                continue
            seen.add(key)
            if sum(state[2]) == total:
                return finish(
                    Outcome.SOLVED, [s for p in (*path, steps) for s in p], expanded
                )
            if budget.exhausted(expanded):
                return finish(Outcome.UNKNOWN, [], expanded)
            expanded += 1
            path.append(steps)
            stack.append(iter(search.children(*state)))
            break
        else:
            stack.pop()
            path.pop()
    return finish(Outcome.UNWINNABLE, [], expanded)


def _concrete(game: Game, steps: list[Step]) -> tuple[Move, ...]:
    g = game.copy()
    line: list[Move] = []
    for card, n, dest in steps:
        src = next(
            p
            for p in g.columns + g.cells
            if len(g.piles[p]) >= n and g.piles[p][-n].id % 52 == card
        )
        if dest == HOME:
            dst = g.foundations[card // 13]
        elif dest == CELL:
            dst = next(c for c in g.cells if not g.piles[c])
        elif dest == EMPTY:
            dst = next(t for t in g.columns if not g.piles[t])
        else:
            dst = next(t for t in g.columns if g.piles[t] and g.piles[t][-1].id % 52 == dest)
        move = g.apply(Move(src, dst, n))
        assert isinstance(move, Move)
        line.append(move)
    return tuple(line)
