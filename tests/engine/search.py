"""A small, honest search that finds winning lines for the tests (not a product solver).

:func:`find_win` returns the list of actions that wins a deal, each as the
engine's :meth:`Game.apply` returned it, or ``None`` when the node budget runs
out first. Each search is bounded by its budget, so no test can hang on it.

The search keeps its own compact copy of the rules (RULES.md Parts A and B),
written independently of the engine: cards are numbers ``suit * 13 + rank - 1``
(the engine's card id modulo 52), piles are tuples. The line it finds is then
played through the engine from the deal, so any move the engine refuses but
these rules allow shows up as an :class:`EngineDisagrees` error naming the step.

Seahaven Towers: a depth-first search over the moves ordered best first, with
a visited set of canonical positions (columns sorted, cells sorted). Every card
that can go to its foundation is sent there at once: in a same-suit game no card
ever needs to build on a card its foundation could take.

Easy Harp: the searcher sees every card (face-down and stock cards are in
``g.piles``). The stock and waste are read as one sequence — the order in which
cards are drawn — and a pointer (the waste's length); since passes are free and
unlimited, every card of that sequence can be brought to the top of the waste,
so "tap the stock until card X shows, then play it" is one move of the search,
and the pointer is left out of the visited key. A best-first search (the
best-scored position seen so far is expanded next, newest first among equals)
with a visited set; the score prefers cards on foundations, face-down cards
turned up, columns emptied and fewer face-up cards left on face-down ones. A
card goes to its foundation at once only when no card could still need to build
on it; other foundation moves are ordinary moves of the search.

Both searches leave out moves that cannot help: a cell's card into another
cell, a lone king (or a whole king-led column) into another empty column, a
take-back from a foundation; and they try only the leftmost empty column and
cell, the others being equivalent.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Hashable, Iterable, Iterator
from typing import Any, NamedTuple

from games.engine import EasyHarp, Game, IllegalActionError, Move, Seahaven, Stock, new_game

KING = 12  # rank - 1 of a king
DEFAULT_BUDGET = 20_000
"""Positions the search may expand before it gives up."""

Plan = list[Move | Stock]


class EngineDisagrees(AssertionError):
    """The engine refused a step of a line the search found legal by RULES.md."""


def find_win(code: str, budget: int = DEFAULT_BUDGET) -> list[Move | Stock] | None:
    """A winning line for deal ``code`` as resolved engine actions, or None."""
    game = new_game(code)
    if isinstance(game, Seahaven):
        plan = _dfs(_seahaven_problem(game), budget)
    elif isinstance(game, EasyHarp):
        plan = _best_first(_easy_harp_problem(game), budget)
    else:  # pragma: no cover - only two games exist
        raise TypeError(f"no search for {type(game).__name__}")
    return None if plan is None else play_line(code, plan)


def play_line(code: str, plan: Iterable[Move | Stock]) -> list[Move | Stock]:
    """Play ``plan`` through the engine from the deal; return what ``apply`` returned."""
    game = new_game(code)
    line: list[Move | Stock] = []
    for index, action in enumerate(plan):
        try:
            resolved = game.apply(action)
        except IllegalActionError as exc:
            raise EngineDisagrees(
                f"{code}: step {index} {action!r} refused ({exc.code}: {exc.message}); "
                f"position: {game.view(full=True)['piles']}"
            ) from exc
        assert isinstance(resolved, Move | Stock)
        line.append(resolved)
    return line


# --- the search --------------------------------------------------------------------


class Child(NamedTuple):
    score: int
    actions: tuple[Move | Stock, ...]
    state: object


class Problem(NamedTuple):
    start: list[Move | Stock]
    """The moves that reach ``root`` from the deal (cards sent home at once)."""
    root: Any
    children: Callable[[Any], list[Child]]
    key: Callable[[Any], Hashable]
    won: Callable[[Any], bool]


def _dfs(problem: Problem, budget: int) -> Plan | None:
    """Depth-first search, best child first, each canonical position expanded once."""
    start, root, children, key, won = problem
    if won(root):
        return start
    seen = {key(root)}
    stack: list[Iterator[Child]] = [iter(children(root))]
    path: list[tuple[Move | Stock, ...]] = [tuple(start)]
    expanded = 0
    while stack:
        for child in stack[-1]:
            state = child.state
            if won(state):
                return [action for step in (*path, child.actions) for action in step]
            k = key(state)
            if k in seen:
                continue
            seen.add(k)
            expanded += 1
            if expanded > budget:
                return None
            path.append(child.actions)
            stack.append(iter(children(state)))
            break
        else:
            stack.pop()
            path.pop()
    return None


def _best_first(problem: Problem, budget: int) -> Plan | None:
    """Best-first search: always expand the best-scored position seen so far."""
    start, root, children, key, won = problem
    if won(root):
        return start
    seen = {key(root)}
    # Each entry: (-score, tie, state, link); a link is (actions, parent link) or None.
    heap: list[tuple[int, int, Any, Any]] = [(0, 0, root, None)]
    tie = 0
    expanded = 0
    while heap and expanded < budget:
        _, _, state, link = heapq.heappop(heap)
        expanded += 1
        for child in children(state):
            new_link = (child.actions, link)
            if won(child.state):
                steps: list[tuple[Move | Stock, ...]] = []
                while new_link is not None:
                    steps.append(new_link[0])
                    new_link = new_link[1]
                return start + [action for step in reversed(steps) for action in step]
            k = key(child.state)
            if k in seen:
                continue
            seen.add(k)
            tie -= 1  # among equals, the newest first (depth first)
            heapq.heappush(heap, (-child.score, tie, child.state, new_link))
    return None


def _ordered(found: list[Child]) -> list[Child]:
    found.sort(key=lambda c: -c.score)
    return found


def _suit(card: int) -> int:
    return card // 13


def _rank(card: int) -> int:
    return card % 13


# --- Seahaven Towers -----------------------------------------------------------------


class SH(NamedTuple):
    cols: tuple[tuple[int, ...], ...]
    cells: tuple[int, ...]  # -1: empty
    found: tuple[int, ...]  # cards on each foundation, spades, hearts, diamonds, clubs


def _seahaven_problem(game: Game) -> Problem:
    cols = tuple(tuple(c.id % 52 for c in game.piles[t]) for t in game.columns)
    cells = tuple(game.piles[c][0].id % 52 if game.piles[c] else -1 for c in game.cells)
    found = tuple(len(game.piles[f]) for f in game.foundations)
    start: list[Move | Stock] = []
    root = _sh_settle([list(c) for c in cols], list(cells), list(found), start)
    return Problem(start, root, _sh_children, _sh_key, _sh_won)


def _sh_settle(
    cols: list[list[int]], cells: list[int], found: list[int], out: list[Move | Stock]
) -> SH:
    """Send every card that can go to its foundation there (always safe in Seahaven)."""
    moved = True
    while moved:
        moved = False
        for i, col in enumerate(cols):
            while col and found[_suit(col[-1])] == _rank(col[-1]):
                s = _suit(col.pop())
                found[s] += 1
                out.append(Move(f"t{i + 1}", f"f{s + 1}"))
                moved = True
        for j, card in enumerate(cells):
            if card >= 0 and found[_suit(card)] == _rank(card):
                found[_suit(card)] += 1
                cells[j] = -1
                out.append(Move(f"c{j + 1}", f"f{_suit(card) + 1}"))
                moved = True
    return SH(tuple(map(tuple, cols)), tuple(cells), tuple(found))


def _sh_won(s: SH) -> bool:
    return sum(s.found) == 52


def _sh_key(s: SH) -> Hashable:
    return (tuple(sorted(s.cols)), tuple(sorted(s.cells)))


def _run(col: tuple[int, ...]) -> int:
    """Cards at the top of ``col`` forming a same-suit run, each one rank below the next."""
    n = 1
    while n < len(col) and col[-n - 1] == col[-n] + 1 and _rank(col[-n]) != KING:
        n += 1
    return n


def _sh_score(s: SH) -> int:
    """Bigger is better: cards home, next cards near the top, free cells, empty columns."""
    score = 1000 * sum(s.found)
    free = s.cells.count(-1)
    score += 30 * free
    for col in s.cols:
        if not col:
            score += 40
            continue
        # Cards resting on their same-suit successor, kings at the bottom.
        score += 8 * (_run(col) - 1)
        if _rank(col[0]) == KING:
            score += 10
        for depth, card in enumerate(reversed(col)):
            need = s.found[_suit(card)]
            if _rank(card) == need:
                score -= 12 * depth  # the next card of this suit is buried this deep
            elif _rank(card) == KING and depth < len(col) - 1:
                score -= 3  # a king covering other cards
    return score


def _sh_children(s: SH) -> list[Child]:
    cols, cells, found = s.cols, s.cells, s.found
    free_cells = [j for j, c in enumerate(cells) if c < 0]
    empty_cols = [i for i, col in enumerate(cols) if not col]
    first_empty = empty_cols[0] if empty_cols else -1

    def capacity(dst_empty: bool) -> int:
        # (free cells + 1) × 2^(empty columns), an empty destination not counted (B, C17).
        return (len(free_cells) + 1) << (len(empty_cols) - dst_empty)

    out: list[Child] = []

    def add(src: str, dst: str, n: int) -> None:
        new_cols = [list(c) for c in cols]
        new_cells = list(cells)
        if src[0] == "c":
            cards = [new_cells[int(src[1:]) - 1]]
            new_cells[int(src[1:]) - 1] = -1
        else:
            column = new_cols[int(src[1:]) - 1]
            cards = column[-n:]
            del column[-n:]
        if dst[0] == "c":
            new_cells[int(dst[1:]) - 1] = cards[0]
        else:
            new_cols[int(dst[1:]) - 1].extend(cards)
        actions: list[Move | Stock] = [Move(src, dst, n)]
        state = _sh_settle(new_cols, new_cells, list(found), actions)
        out.append(Child(_sh_score(state), tuple(actions), state))

    for i, col in enumerate(cols):
        if not col:
            continue
        src = f"t{i + 1}"
        top = col[-1]
        run = _run(col)
        for j, other in enumerate(cols):
            if j == i:
                continue
            if other:
                # The head of the group must be the card just below ``other``'s top, same suit.
                under = other[-1] - 1
                n = _rank(other[-1]) - _rank(top)
                if (
                    _suit(under) == _suit(top)
                    and _rank(other[-1]) > 0
                    and 1 <= n <= run
                    and (n == 1 or n <= capacity(False))
                ):
                    add(src, f"t{j + 1}", n)
            elif (
                # A king (and its run) into an empty column, only if it uncovers something.
                j == first_empty
                and _rank(col[-run]) == KING
                and run < len(col)
                and (run == 1 or run <= capacity(True))
            ):
                add(src, f"t{j + 1}", run)
        if free_cells:
            add(src, f"c{free_cells[0] + 1}", 1)
    for j, card in enumerate(cells):
        if card < 0:
            continue
        for i, col in enumerate(cols):
            builds = bool(col) and col[-1] == card + 1 and _rank(card) != KING
            if builds or (not col and i == first_empty and _rank(card) == KING):
                add(f"c{j + 1}", f"t{i + 1}", 1)
    return _ordered(out)


# --- Easy Harp -----------------------------------------------------------------------


class EH(NamedTuple):
    cols: tuple[tuple[int, ...], ...]
    down: tuple[int, ...]
    deck: tuple[int, ...]
    """Waste (bottom to top) then stock (next card first): the order cards are drawn in."""
    at: int
    """How many of ``deck`` are on the waste."""
    found: tuple[int, ...]  # cards on f1..f8 (♠ ♥ ♦ ♣ ♠ ♥ ♦ ♣)


def _red(card: int) -> bool:
    return _suit(card) in (1, 2)


def _builds(card: int, top: int) -> bool:
    return _red(card) != _red(top) and _rank(top) == _rank(card) + 1


def _spot(found: tuple[int, ...] | list[int], card: int) -> int:
    """The first foundation spot that accepts ``card`` (C7), or -1."""
    s, r = _suit(card), _rank(card)
    if found[s] == r:
        return s
    if found[s + 4] == r:
        return s + 4
    return -1


def _safe(found: tuple[int, ...] | list[int], card: int) -> bool:
    """No card still out could want to build on ``card``: all four opposite-colour
    cards one rank lower are home already."""
    r = _rank(card)
    if r <= 1:
        return True
    opposite = (0, 3) if _red(card) else (1, 2)
    return all(found[s] >= r and found[s + 4] >= r for s in opposite)


def _easy_harp_problem(game: Game) -> Problem:
    cols = [[c.id % 52 for c in game.piles[t]] for t in game.columns]
    down = [game.down[t] for t in game.columns]
    waste = [c.id % 52 for c in game.piles["w"]]
    deck = waste + [c.id % 52 for c in reversed(game.piles["s"])]
    found = [len(game.piles[f]) for f in game.foundations]
    start: list[Move | Stock] = []
    root = _eh_settle(cols, down, deck, len(waste), found, out=start)
    return Problem(start, root, _eh_children, _eh_key, _eh_won)


def _eh_won(s: EH) -> bool:
    return sum(s.found) == 104


def _eh_key(s: EH) -> Hashable:
    # Twins are interchangeable, so are columns; the waste pointer is not part of the position that
    # matters (every card of the deck can be brought up with free stock taps).
    pairs = tuple(tuple(sorted(s.found[i::4])) for i in range(4))
    return (tuple(sorted(zip(s.cols, s.down, strict=True))), s.deck, pairs)


def _eh_settle(
    cols: list[list[int]],
    down: list[int],
    deck: list[int],
    at: int,
    found: list[int],
    *,
    out: list[Move | Stock],
) -> EH:
    """Send to the foundations the column tops (and the waste top) no card needs."""
    moved = True
    while moved:
        moved = False
        for i, col in enumerate(cols):
            while col and (spot := _spot(found, col[-1])) >= 0 and _safe(found, col[-1]):
                col.pop()
                found[spot] += 1
                if down[i] and down[i] == len(col):
                    down[i] -= 1
                out.append(Move(f"t{i + 1}", f"f{spot + 1}"))
                moved = True
        while at and (spot := _spot(found, deck[at - 1])) >= 0 and _safe(found, deck[at - 1]):
            del deck[at - 1]
            at -= 1
            found[spot] += 1
            out.append(Move("w", f"f{spot + 1}"))
            moved = True
    return EH(tuple(map(tuple, cols)), tuple(down), tuple(deck), at, tuple(found))


def _eh_score(s: EH) -> int:
    score = 100 * sum(s.found) - 60 * sum(s.down)
    for col, down in zip(s.cols, s.down, strict=True):
        if not col:
            score += 15
        elif down:
            score -= 4 * (len(col) - down)  # face-up cards still to clear off face-down ones
        elif _rank(col[0]) == KING:
            score += 5
    return score


def _taps(s: EH, index: int) -> int:
    """Stock taps that bring ``deck[index]`` to the top of the waste."""
    if index + 1 >= s.at:
        return index + 1 - s.at
    return len(s.deck) - s.at + 1 + index + 1  # to the end, one pass, then draw again


def _eh_children(s: EH) -> list[Child]:
    cols, down, found = s.cols, s.down, s.found
    first_empty = next((i for i, col in enumerate(cols) if not col), -1)
    out: list[Child] = []

    def play(
        src: int, dst: str, n: int = 1, taps: int = 0, deck_index: int = -1
    ) -> None:  # src -1: the waste
        new_cols = [list(c) for c in cols]
        new_down = list(down)
        new_found = list(found)
        deck = list(s.deck)
        at = s.at
        actions: list[Move | Stock] = [Stock()] * taps
        if src < 0:
            cards = [deck.pop(deck_index)]
            at = deck_index
            source = "w"
        else:
            column = new_cols[src]
            cards = column[-n:]
            del column[-n:]
            if new_down[src] and new_down[src] == len(column):
                new_down[src] -= 1  # the uncovered card turns face up
            source = f"t{src + 1}"
        if dst[0] == "f":
            new_found[int(dst[1:]) - 1] += 1
        else:
            new_cols[int(dst[1:]) - 1].extend(cards)
        actions.append(Move(source, dst, n))
        state = _eh_settle(new_cols, new_down, deck, at, new_found, out=actions)
        out.append(Child(_eh_score(state), tuple(actions), state))

    def column_targets(card: int, src: int) -> Iterator[str]:
        for j, col in enumerate(cols):
            if j == src:
                continue
            if col:
                if _builds(card, col[-1]):
                    yield f"t{j + 1}"
            elif j == first_empty and _rank(card) == KING:
                yield f"t{j + 1}"

    for i, col in enumerate(cols):
        if not col:
            continue
        top = col[-1]
        if (spot := _spot(found, top)) >= 0:
            play(i, f"f{spot + 1}")
        for dst in column_targets(top, i):
            if cols[int(dst[1:]) - 1] or len(col) > 1:  # a lone king stays where it is
                play(i, dst)
        # A king-led run moves as a whole into an empty column (A).
        run = 1
        while run < len(col) - down[i] and _builds(col[-run], col[-run - 1]):
            run += 1
        if run > 1 and _rank(col[-run]) == KING and run < len(col) and first_empty >= 0:
            play(i, f"t{first_empty + 1}", run)
    # Any card of the stock and waste, brought to the top of the waste with free taps.
    tried: set[tuple[int, str]] = set()
    order = list(range(s.at - 1, len(s.deck))) + list(range(max(s.at - 1, 0)))
    for index in order:
        if index < 0:
            continue
        card = s.deck[index]
        dsts = list(column_targets(card, -1))
        if (spot := _spot(found, card)) >= 0:
            dsts.insert(0, f"f{spot + 1}")
        for dst in dsts:
            if (card, dst) not in tried:  # the nearest twin is as good as the other
                tried.add((card, dst))
                play(-1, dst, taps=_taps(s, index), deck_index=index)
    return _ordered(out)
