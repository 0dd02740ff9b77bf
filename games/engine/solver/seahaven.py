"""The Seahaven Towers solver: a complete depth-first search with sound pruning.

:func:`solve_seahaven` searches from a game's current position — a fresh deal or
a game in progress, with 4, 2 or 1 cells — and answers SOLVED with a line of the
engine's resolved actions, UNWINNABLE when it has searched everything reachable,
or UNKNOWN when the budget runs out. The daily-deal job uses it both ways: to
find a winnable deal and to prove that a position can no longer be won.

Positions
---------
Cards are numbers ``suit * 13 + rank - 1`` (the engine's card ids: ``cards.py``),
so a card's successor in its suit — the only card it may go onto, "the 7♥ goes
only onto the 8♥" (RULES.md B) — is ``card + 1`` unless the card is a king. A
position is a tuple of ten ``bytes`` columns (bottom to top) kept sorted, the
cells as sorted ``bytes``, and the four foundation heights. Its visited-set key
is the columns and cells joined into one short ``bytes`` (about 60 bytes):

* **Column order and cell order do not matter.** Every rule treats the ten
  columns alike and the cells alike, so positions that differ only by a
  permutation of columns or of cells are one position; the search keeps its
  columns and cells sorted and never knows which real pile is which. The line
  is made concrete at the end, by card (see :func:`_concrete`).
* **Foundations are left out of the key**: from a given start, the cards still in
  play fix how many cards of each suit went home.

Moves the search makes
----------------------
Only moves that can matter are generated (each argued below; "dominates" means
every line that wins from the other position can be turned into one that wins
from this one):

1. **A column's whole top run onto its head's successor**, as one group move
   (B, "Group moves": at most (free cells + 1) × 2^(empty columns)). A shorter
   part of the run never has anywhere else to go: the successor of any card of
   the run but its head is the card under it.
2. **A king-led top run into an empty column** (B, "Empty column: kings only"),
   with the destination not counted in the capacity — unless the run is the
   whole column: moving a whole column into another empty column changes
   nothing (C14), it is the same position up to column order.
3. **A column's whole top run into the free cells**, one card per cell — a
   compound of single-card moves, one search step. It is the only way to dig
   under a run, and it is generated only when the head's successor is not
   available (then move 1 reaches the same position in one group move).
4. **A king from a cell into an empty column.**

Only one empty column and one free cell are ever used as a target: the others
are equivalent (the real line names the leftmost, C8). A card never goes from
one cell to another (nothing changes, C10/C14).

:func:`searched` states this pruning once, on the engine's position, and
``tests/games/engine/solver/test_moves.py`` checks on random positions that the search
makes exactly the engine's legal moves it keeps, and that each child is the
engine's position after the same moves.

And moves made at once, inside the search only, each emitted into the line as an
explicit engine move (``Move(src, "fN")``, ``Move("cK", "tJ")``) so the engine
replays exactly what the search did:

5. **Every card that can go to its foundation goes there.** In Seahaven any card
   whose predecessor is home is safe to send home: the only card that could
   build on it is that predecessor, already home, so leaving it in play only
   takes room. (The position with it home dominates: replay any winning line,
   leaving out the moves of that card — a group that carries it, on top, is one
   card shorter; every other move stays legal, with as many free cells and empty
   columns or more, hence as large a capacity.)
6. **A card in a cell whose successor is the top of a column goes onto it.**
   Call A the position before, B after. B dominates A: replay A's winning line
   from B; while A leaves the card ``x`` in its cell, B has one more free cell
   and ``x`` riding on ``x + 1``. A move of ``x`` home or onto ``x + 1`` is
   done the same way or not at all; a move of ``x + 1`` alone, or at the top of
   a run of n cards, onto a column becomes a group of one more card, which fits
   because B's capacity is (free + 2) × 2^e ≥ (free + 1) × 2^e + 1 ≥ n + 1;
   ``x + 1`` (with j - 1 cards on it) into cells becomes ``x`` and those j
   cards into cells — B has the one more free cell it takes — and from then on
   A and B are the same position. No other move of A needs anything B lacks.
   So the replay never takes more steps than A's line (steps as counted below),
   which is what makes the search complete.

Take-backs from a foundation are never made. They are never needed: take the
last take-back of a winning line, of a card ``x``; by the argument of 5, the
position before it, with ``x`` home, wins without it (nothing can go onto ``x``
in the rest of the line, its predecessor being home for good). Removing the
take-backs one at a time from the last leaves a winning line without any. (The
engine's Seahaven docstring makes the same point for its dead-end test.)

Why UNWINNABLE is a proof
-------------------------
Count as one step any legal move but a take-back, and also "the top j cards of a
run into j free cells". Let d(P) be the fewest steps that win from P (infinite
if none). The moves made at once (5, 6) never increase d, by the replays above
(each step of A's line becomes at most one step of B's). Now take a settled
position P — nothing to send home, no cell card to put back — with d(P) finite,
and the first step of a shortest win, leading to P1 with d(P1) = d(P) - 1. That
step cannot be a foundation move nor a cell card onto its successor (P is
settled); nor part of a run into the cells (6 would put it straight back, so
d(P) ≤ d(P1)); nor a move that changes nothing (a cell's card into another cell,
a whole column into an empty one); nor part of a run onto a column (it has
nowhere to go, see 1). So it is one of moves 1-4, up to which free cell or empty
column it uses (a whole run into the cells while its head's successor is on top
of a column settles into move 1), and the search's child, P1 settled, has
d < d(P). Hence a winnable position always has a generated child nearer the win,
and a depth-first search that expands each position it reaches once — keyed
exactly, not by a hash — finds a win if one exists. When it runs out of
positions, none is won.

Order and budget
----------------
Children are tried best first by a score of the position they reach: cards home
first, then how deep the next card of each suit is buried, how many cards lie
above a lower card of their suit, free cells and empty columns. So moves that
send cards home or uncover the next card needed come first, and filling a cell
comes late, as it costs a free cell. Exhaustive searches do not depend on the
order; with 1 or 2 cells most deals are settled either way in a few dozen
positions (figures in ``bench/solver.py``). The budget counts expanded
positions.

The line
--------
Two cheap passes shorten the depth-first line. :func:`_shortcut` cuts detours:
from each position of the line it jumps to the latest later one that a single
search step reaches. :func:`_shorten` then drops single moves, and pairs of
moves of one card (into a cell, then out), whenever the line still wins without
them, checked by replaying it with the rules. Last, every step is turned into
the engine's resolved action by finding its card in the real game
(:func:`_concrete`) and played through :meth:`Game.apply` on a copy, so a line
the engine would refuse can never be returned. The line's length, home moves
included, is the deal's par: short, not the shortest.
"""

from __future__ import annotations

import time

from ..actions import Move
from ..base import Game
from ..cards import KING as KING_RANK
from ..cards import RANK_CHARS, Suit
from . import Budget, Outcome, Solution

KING = KING_RANK - 1
"""``rank - 1`` of a king."""
N_CARDS = len(Suit) * len(RANK_CHARS)
"""One deck (``Seahaven.n_cards``: ``tests/games/engine/solver/test_moves.py`` checks)."""

CELL = -1
"""Step targets besides a card (a step onto a card names the card): a free cell,"""
EMPTY = -2
"""an empty column,"""
HOME = -3
"""the card's foundation."""

ONE = tuple(bytes([c]) for c in range(N_CARDS))
COLUMN_SEP = b"\xff"
CELLS_SEP = b"\xfe"

Step = tuple[int, int, int]
"""``(card, count, target)``: move ``card`` and the ``count - 1`` cards on it to the target
(a card, or CELL, EMPTY, HOME)."""
Columns = tuple[bytes, ...]
Position = tuple[Columns, bytes, tuple[int, ...]]
"""Sorted columns, sorted cells, foundation heights (♠ ♥ ♦ ♣)."""
Child = tuple[int, bytes, Position, tuple[Step, ...]]
"""Score, key, position, and the steps that reach it from its parent."""


W_HOME = 1000
"""Score weights (:meth:`_Search.score`): a card home,"""
W_BURIED = 25
"""a card lying on the next card of a suit to go home,"""
W_BLOCKED = 20
"""a card lying above a lower card of its own suit (it must move before that one goes home),"""
W_FREE_CELL = 100
"""a free cell,"""
W_EMPTY_COLUMN = 60
"""an empty column."""


def solve_seahaven(game: Game, budget: Budget) -> Solution:
    """Search ``game``'s current position for a win (see the module docstring)."""
    started = time.perf_counter()
    n_cells = len(game.cells)
    cols, cells, found = position_of(game)
    start_cols, start_cells, start_found = list(cols), list(cells), list(found)

    def finish(outcome: Outcome, steps: list[Step], nodes: int) -> Solution:
        line: tuple[Move, ...] = ()
        if outcome is Outcome.SOLVED:
            steps = _shorten(start_cols, start_cells, start_found, n_cells, steps)
            line = _concrete(game, steps)
        return Solution(outcome, line, nodes, time.perf_counter() - started)

    if game.won:
        return finish(Outcome.SOLVED, [], 0)
    if budget.exhausted(0):
        return finish(Outcome.UNKNOWN, [], 0)
    start: list[Step] = []
    _settle(cols, cells, found, start)
    if sum(found) == N_CARDS:
        return finish(Outcome.SOLVED, start, 0)
    search = _Search(n_cells)
    root: Position = (tuple(sorted(cols)), bytes(sorted(cells)), tuple(found))
    seen = search.seen
    seen.add(_key(root[0], root[1]))
    expanded = 1
    stack = [iter(search.children(*root))]
    trail = [root]  # the positions of the current line, and the steps between them
    path: list[tuple[Step, ...]] = []
    while stack:
        for _, key, position, steps in stack[-1]:
            if key in seen:  # reached meanwhile by another way, deeper in the search
                continue
            seen.add(key)
            if sum(position[2]) == N_CARDS:
                line = _shortcut(n_cells, [*trail, position], [*path, steps])
                return finish(Outcome.SOLVED, start + line, expanded)
            if budget.exhausted(expanded):
                return finish(Outcome.UNKNOWN, [], expanded)
            expanded += 1
            trail.append(position)
            path.append(steps)
            stack.append(iter(search.children(*position)))
            break
        else:
            stack.pop()
            trail.pop()
            if path:
                path.pop()
    return finish(Outcome.UNWINNABLE, [], expanded)


def position_of(game: Game) -> tuple[list[bytes], list[int], list[int]]:
    """The game's position as the search reads it: each column's cards (bottom to top) and
    the cells' cards as card numbers, in the engine's pile order, and the foundation heights."""
    cols = [bytes(c.id % N_CARDS for c in game.piles[t]) for t in game.columns]
    cells = [game.piles[c][-1].id % N_CARDS for c in game.cells if game.piles[c]]
    found = [len(game.piles[f]) for f in game.foundations]
    return cols, cells, found


# --- the search ----------------------------------------------------------------------


def _run(col: bytes) -> int:
    """How many cards at the top of ``col`` form a run: same suit, each one rank below
    the card it covers (a king covers nothing it could build on)."""
    i = len(col) - 1
    while i > 0 and col[i - 1] == col[i] + 1 and col[i] % 13 != KING:
        i -= 1
    return len(col) - i


def _settle(cols: list[bytes], cells: list[int], found: list[int], steps: list[Step]) -> None:
    """Make the moves made at once (5 and 6 of the module docstring), recording them."""
    tops = {col[-1]: i for i, col in enumerate(cols) if col}
    progress = True
    while progress:  # 5: every card whose predecessor is home goes home
        progress = False
        for suit in range(4):
            while found[suit] < 13:
                need = suit * 13 + found[suit]
                i = tops.pop(need, -1)
                if i >= 0:
                    col = cols[i] = cols[i][:-1]
                    if col:
                        tops[col[-1]] = i
                elif need in cells:
                    cells.remove(need)
                else:
                    break
                found[suit] += 1
                steps.append((need, 1, HOME))
                progress = True
    # 6: a cell's card onto its successor. Highest first, so that a lower card of the
    # same suit finds it there. It sends nothing home: the card did not go home above.
    for card in sorted(cells, reverse=True):
        if card % 13 != KING and (i := tops.pop(card + 1, -1)) >= 0:
            cols[i] += ONE[card]
            tops[card] = i
            cells.remove(card)
            steps.append((card, 1, card + 1))


def _key(cols: Columns, cells: bytes) -> bytes:
    """The visited-set key: cells first (so a card's offset tells where it is), then the
    sorted columns. Card bytes are below 52, the separators above."""
    return cells + CELLS_SEP + COLUMN_SEP.join(cols)


class _Blocked(dict[bytes, int]):
    """Per column, the cards lying above a lower card of their own suit (memoized: the
    same columns come back in many positions)."""

    def __missing__(self, col: bytes) -> int:
        lowest = [13, 13, 13, 13]
        count = 0
        for card in col:
            suit, rank = divmod(card, 13)
            if lowest[suit] < rank:
                count += 1
            else:
                lowest[suit] = rank
        self[col] = count
        return count


class _Search:
    """The positions seen so far and the generation of children."""

    def __init__(self, n_cells: int) -> None:
        self.n_cells = n_cells
        self.seen: set[bytes] = set()
        self.blocked = _Blocked()

    def score(self, key: bytes, cols: Columns, cells: int, found: list[int]) -> int:
        """Bigger is better: cards home, the next card of each suit near the top, few
        cards above lower ones of their suit, free cells and empty columns."""
        empties = 0
        for col in cols:  # sorted: the empty columns come first
            if col:
                break
            empties += 1
        score = (
            W_HOME * sum(found)
            + W_FREE_CELL * (self.n_cells - cells)
            + W_EMPTY_COLUMN * empties
            - W_BLOCKED * sum(map(self.blocked.__getitem__, cols))
        )
        for suit in range(4):
            height = found[suit]
            if height < 13:
                at = key.find(ONE[suit * 13 + height])
                if at > cells:  # in a column (not a cell, not absent): count the cards on it
                    end = key.find(COLUMN_SEP, at)
                    score -= W_BURIED * ((len(key) if end < 0 else end) - at - 1)
        return score

    def children(self, cols: Columns, cells: bytes, found: tuple[int, ...]) -> list[Child]:
        """The positions one search step away (moves 1-4), settled, not seen yet, best
        first."""
        free = self.n_cells - len(cells)
        empties = 0
        for col in cols:
            if col:
                break
            empties += 1
        capacity = (free + 1) << empties
        tops = {col[-1]: i for i, col in enumerate(cols) if col}
        seen = self.seen
        out: list[Child] = []

        def add(new_cols: list[bytes], new_cells: list[int], steps: list[Step]) -> None:
            new_found = list(found)
            _settle(new_cols, new_cells, new_found, steps)
            sorted_cols = tuple(sorted(new_cols))
            sorted_cells = bytes(sorted(new_cells))
            key = _key(sorted_cols, sorted_cells)
            if key not in seen:
                score = self.score(key, sorted_cols, len(sorted_cells), new_found)
                position = (sorted_cols, sorted_cells, tuple(new_found))
                out.append((score, key, position, tuple(steps)))

        for i, col in enumerate(cols):
            if not col:
                continue
            n = len(col)
            run = _run(col)
            head = col[n - run]
            j = tops.get(head + 1, -1) if head % 13 != KING else -1
            if j >= 0:
                # 1. The whole run onto the head's successor, if the group fits.
                if run <= capacity:
                    new = list(cols)
                    new[i] = col[: n - run]
                    new[j] = cols[j] + col[n - run :]
                    add(new, list(cells), [(head, run, head + 1)])
                continue
            if head % 13 == KING and run < n and empties and run <= (free + 1) << (empties - 1):
                # 2. A king-led run into an empty column (the first column: they are
                # sorted), only when it uncovers something.
                new = list(cols)
                new[i] = col[: n - run]
                new[0] = col[n - run :]
                add(new, list(cells), [(head, run, EMPTY)])
            if run <= free:
                # 3. The whole run into the cells, top card first.
                new = list(cols)
                new[i] = col[: n - run]
                steps = [(col[k], 1, CELL) for k in range(n - 1, n - run - 1, -1)]
                add(new, [*cells, *col[n - run :]], steps)
        if empties:
            for card in cells:
                if card % 13 == KING:
                    # 4. A king from a cell into an empty column.
                    new = list(cols)
                    new[0] = ONE[card]
                    rest = list(cells)
                    rest.remove(card)
                    add(new, rest, [(card, 1, EMPTY)])
        out.sort(key=lambda child: -child[0])
        return out


def searched(game: Game, move: Move) -> bool:
    """Whether the search's first step from ``game``'s position may be ``move``, a legal
    engine move: the pruning of the module docstring stated on the engine's position.

    :meth:`_Search.children` makes exactly the legal moves this accepts (up to which free
    cell or empty column a move uses); ``tests/games/engine/solver/test_moves.py`` checks it.
    Left out: take-backs (never needed), moves home and a cell's card onto its successor
    (5 and 6: made at once), a card from cell to cell and a whole column into an empty one
    (they change nothing), and parts of runs.
    """
    src, dst, n = move.source, move.target, move.count
    if src[0] == "f" or dst[0] == "f":
        return False
    if src[0] == "c":
        return dst[0] == "t" and not game.piles[dst]  # 4
    pile = game.piles[src]
    run = game.run_length(src)
    head = pile[-run]
    if dst[0] == "c":
        # 3: the whole run into the cells (this is its first card), when it fits and its
        # head's successor is not on top of a column.
        tops = {game.piles[t][-1].id for t in game.columns if game.piles[t]}
        return run <= len(game.cells) - sum(1 for c in game.cells if game.piles[c]) and (
            head.rank == KING_RANK or head.id + 1 not in tops
        )
    if game.piles[dst]:
        return n == run  # 1
    return n == run < len(pile)  # 2


# --- the line ------------------------------------------------------------------------


def _shortcut(n_cells: int, trail: list[Position], path: list[tuple[Step, ...]]) -> list[Step]:
    """The depth-first line, with detours cut: from each position of the line, jump to the
    latest later one that a single search step reaches."""
    later = {_key(cols, cells): i for i, (cols, cells, _) in enumerate(trail)}
    search = _Search(n_cells)  # nothing seen: every child is listed
    line: list[Step] = []
    i = 0
    while i < len(path):
        to, steps = i + 1, path[i]
        for _, key, _, child_steps in search.children(*trail[i]):
            j = later.get(key, -1)
            if j > to:
                to, steps = j, child_steps
        line += steps
        i = to
    return line


class _Replay:
    """A plain position for checking a line of steps against the rules (RULES.md B)."""

    def __init__(self, cols: list[bytes], cells: list[int], found: list[int], n_cells: int) -> None:
        self.cols = [list(col) for col in cols]
        self.cells = list(cells)
        self.found = list(found)
        self.n_cells = n_cells

    def copy(self) -> _Replay:
        other = object.__new__(_Replay)
        other.cols = [list(col) for col in self.cols]
        other.cells = list(self.cells)
        other.found = list(self.found)
        other.n_cells = self.n_cells
        return other

    def play(self, step: Step) -> bool:
        """Play ``step`` if the rules allow it; say whether they did."""
        card, n, target = step
        source: list[int] | None = None
        if card in self.cells:
            if n != 1:
                return False
        else:
            for col in self.cols:
                if len(col) >= n and col[-n] == card:
                    source = col
                    break
            else:
                return False
            for k in range(1, n):  # a run: each card on its successor (a king has none)
                if source[-k] % 13 == KING or source[-k - 1] != source[-k] + 1:
                    return False
        free = self.n_cells - len(self.cells)
        empties = sum(1 for col in self.cols if not col)
        moving = [card] if source is None else source[-n:]
        if target == HOME:
            if n != 1 or self.found[card // 13] != card % 13:
                return False
            self.found[card // 13] += 1
        elif target == CELL:
            if n != 1 or not free:
                return False
            self.cells.append(card)
        elif target == EMPTY:
            if card % 13 != KING or not empties or n > (free + 1) << (empties - 1):
                return False
            next(col for col in self.cols if not col).extend(moving)
        else:
            if card % 13 == KING or target != card + 1 or n > (free + 1) << empties:
                return False
            dst = next((col for col in self.cols if col and col[-1] == target), None)
            if dst is None or dst is source:
                return False
            dst.extend(moving)
        if source is None:
            self.cells.remove(card)
        else:
            del source[-n:]
        return True

    def wins(self, steps: list[Step]) -> bool:
        return all(self.play(step) for step in steps) and sum(self.found) == N_CARDS


def _shorten(
    cols: list[bytes], cells: list[int], found: list[int], n_cells: int, steps: list[Step]
) -> list[Step]:
    """Drop moves the win does not need: a single step, or a step with the next step of the
    same card (into a cell, then out), or a step replaced by that next step made at once;
    each candidate is kept only if the whole line still wins."""
    changed = True
    while changed:
        changed = False
        # before[i]: the position before step i.
        before = [_Replay(cols, cells, found, n_cells)]
        for step in steps:
            after = before[-1].copy()
            after.play(step)
            before.append(after)
        i = len(steps) - 1
        while i >= 0:
            card, _, target = steps[i]
            if target != HOME:
                j = next((k for k in range(i + 1, len(steps)) if steps[k][0] == card), -1)
                candidates = [steps[i + 1 :]]
                if j > 0 and steps[j][2] != HOME:
                    middle = steps[i + 1 : j]
                    candidates.append(middle + steps[j + 1 :])
                    candidates.append([steps[j], *middle, *steps[j + 1 :]])
                for rest in candidates:
                    if before[i].copy().wins(rest):
                        steps = steps[:i] + rest
                        changed = True
                        break
                if changed:
                    break
            i -= 1
    return steps


def engine_move(board: Game, step: Step) -> Move:
    """The engine's move for ``step`` in ``board``'s position: the source is wherever the
    card is, a cell or empty column target the leftmost one (C8)."""
    card, n, target = step
    src = next(
        p
        for p in board.columns + board.cells
        if len(board.piles[p]) >= n and board.piles[p][-n].id % N_CARDS == card
    )
    if target == HOME:
        dst = board.foundations[card // 13]
    elif target == CELL:
        dst = next(c for c in board.cells if not board.piles[c])
    elif target == EMPTY:
        dst = next(t for t in board.columns if not board.piles[t])
    else:
        dst = next(
            t for t in board.columns if board.piles[t] and board.piles[t][-1].id % N_CARDS == target
        )
    return Move(src, dst, n)


def _concrete(game: Game, steps: list[Step]) -> tuple[Move, ...]:
    """Turn steps into the engine's resolved moves (:func:`engine_move`), played on a copy of
    ``game``. The engine checks every move; a refusal here would be a bug of this module, and
    raises."""
    board = game.copy()
    line: list[Move] = []
    for step in steps:
        move = board.apply(engine_move(board, step))
        assert isinstance(move, Move)
        line.append(move)
    assert board.won, "the solver's line does not win"
    return tuple(line)
