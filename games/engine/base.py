"""What Easy Harp and Seahaven Towers share: piles, applying and undoing actions,
scoring bookkeeping, legal moves, tap and double tap; its JSON forms (the views,
the stored form, the targets) are ``views.py``'s.

A subclass states only where its rules differ (``easy_harp.py``, ``seahaven.py``):
its piles, its deal, what a column accepts, what a group move needs, what scores.

Pile ids (PRODUCT.md): ``t1``… columns, ``s`` stock, ``w`` waste, ``c1``… cells,
``f1``… foundation spots; the first letter of an id is its kind. Each pile is a
list from bottom to top. ``down[t]`` counts the face-down cards at the bottom of
column ``t``.

Applying an action (:meth:`Game.apply`) first *resolves* it — checks it against
the rules and turns a tap, a double tap or a drop on ``f`` into the concrete
move it makes — then plays it and pushes a :class:`Step` recording what it
changed, so that undo can reverse it exactly (RULES.md C6). Refusals raise
:class:`IllegalActionError` and change nothing.
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections import deque
from collections.abc import Iterator
from typing import ClassVar, Self

from .actions import FOUNDATION_AREA, Action, DoubleTap, Move, Stock, Tap, Undo
from .cards import CARDS, KING, RANK_CHARS, Card, Suit
from .codes import GameCode
from .errors import IllegalActionError, MalformedError
from .history import UNDO_LIMIT, Step
from .sentences import COMMON_REASONS, Sentence, fill
from .shuffle import shuffled_ids
from .snapshot import restore, saved_code
from .views import Views

RANK_NAMES = ["ace", "2", "3", "4", "5", "6", "7", "8", "9", "10", "jack", "queen", "king"]
SUIT_NAMES = {Suit.S: "spades", Suit.H: "hearts", Suit.D: "diamonds", Suit.C: "clubs"}


class Game(Views):
    """A game in progress. Build one from a code; never change its fields directly."""

    game: ClassVar[str]
    """The code prefix: game name and rules version, e.g. ``"EH1"``."""
    title: ClassVar[str]
    n_cards: ClassVar[int]
    n_columns: ClassVar[int]
    foundation_suits: ClassVar[tuple[Suit, ...]]
    reasons: ClassVar[dict[str, Sentence]]
    """Reason code → one sentence naming the rule (C12), this game's own: with
    :data:`COMMON_REASONS`, every refusal it can give (``%(name)s`` fields: see
    :meth:`refuse`). Part of the game's declaration (``GameSpec.refusals``)."""
    hides_cards: ClassVar[bool] = False
    """Whether a player's view hides cards (face-down cards, the stock)."""

    def __init__(self, code: GameCode | str) -> None:
        if not isinstance(code, GameCode):
            code = GameCode.parse(code)
        if code.game != self.game:
            raise MalformedError("bad_code", f"{code} is not a {self.title} code.")
        self.code = code
        self.columns = tuple(f"t{i}" for i in range(1, self.n_columns + 1))
        self.cells = tuple(f"c{i}" for i in range(1, self.n_cells() + 1))
        self.foundations = tuple(f"f{i}" for i in range(1, len(self.foundation_suits) + 1))
        self.spot_suit = dict(zip(self.foundations, self.foundation_suits, strict=True))
        self.pile_ids = self.columns + self.extra_piles() + self.cells + self.foundations
        self.destinations = self.columns + self.cells + self.foundations
        """Piles that may receive a card (plus ``f``, the foundation area)."""
        self.piles: dict[str, list[Card]] = {p: [] for p in self.pile_ids}
        self.down: dict[str, int] = dict.fromkeys(self.columns, 0)
        self.score = 0
        self.moves = 0
        self.won = False
        self.history: deque[Step] = deque(maxlen=UNDO_LIMIT)
        self.depth = 0
        """Accepted actions not undone, counting those older than the undo window."""
        self.scored: set[int] = set()
        """Ids of the cards that have earned their foundation points (C3)."""
        self.deal([CARDS[i] for i in shuffled_ids(code, self.n_cards)])

    # --- what each game says -------------------------------------------------

    def n_cells(self) -> int:
        return 0

    def extra_piles(self) -> tuple[str, ...]:
        """Pile ids besides columns, cells and foundations (Easy Harp: ``s``, ``w``)."""
        return ()

    @abstractmethod
    def deal(self, cards: list[Card]) -> None:
        """Lay out the shuffled cards (the order is documented by each game)."""

    @abstractmethod
    def builds_on(self, card: Card, top: Card) -> bool:
        """May ``card`` go onto a column whose top card is ``top``?"""

    @abstractmethod
    def group_refusal(self, src: str, dst: str, n: int) -> str | None:
        """Why ``n`` > 1 cards may not move from ``src`` to ``dst`` (None: they may)."""

    @abstractmethod
    def points(self, src: str, dst: str, card: Card, turned: bool) -> tuple[int, bool]:
        """Points a one-card move earns, and whether it marks ``card`` as scored."""

    @abstractmethod
    def group_counts(self, src: str) -> Iterator[int]:
        """Group sizes above 1 that could be lifted from column ``src``."""

    def stock_refusal(self) -> str | None:
        return "no_stock"

    def face_down(self, pile_id: str) -> int:
        """How many of a pile's cards, from the bottom, the player cannot see: the
        whole stock, a column's face-down cards (what :meth:`view` hides)."""
        return len(self.piles[pile_id]) if pile_id == "s" else self.down.get(pile_id, 0)

    def is_dead_end(self) -> bool:
        return False

    def dead_end(self) -> bool:
        """:meth:`is_dead_end`, asked once per position (as :meth:`generate_moves`
        lists the moves once): the player's view and the stored game both say it,
        every action (issue 38)."""
        when = (self.moves, self.depth)
        known = self.__dict__.get("_dead_end")
        if known is None or known[0] != when:
            known = self._dead_end = (when, self.is_dead_end())
        return known[1]

    def worth_proving_lost(self) -> bool:
        """Whether this position is tight enough that a proof of a dead end is likely
        and cheap, so the service asks the solver after the action that reached it.
        Being lost is only ever announced with a proof, so a game that never asks
        (the default) costs its players nothing but an earlier notice."""
        return False

    def may_finish(self) -> bool:
        """Whether auto-finish may list this position's moves: they must name no
        card the player cannot see (Easy Harp: see there). Seahaven hides nothing."""
        return True

    # --- checking ------------------------------------------------------------

    def refusal(self, src: str, dst: str, n: int = 1) -> str | None:
        """The reason code refusing ``Move(src, dst, n)``, or None if it is legal.

        ``dst`` is a concrete pile. The game must not be won. This returns a
        code rather than raising so that listing legal moves stays cheap.
        """
        return self.source_refusal(src, n) or self.drop_refusal(src, dst, n)

    def drop_refusal(self, src: str, dst: str, n: int) -> str | None:
        """:meth:`refusal` once :meth:`source_refusal` has let ``n`` cards be lifted."""
        if src == dst:
            return "same_pile"
        if dst[0] in "sw":
            return "not_destination"
        if src[0] == "f" and dst[0] == "f":
            return "foundation_to_foundation"  # C16
        pile = self.piles[src]
        if n > 1:
            return self.group_refusal(src, dst, n)
        card = pile[-1]
        target = self.piles[dst]
        if dst[0] == "t":
            if not target:
                return None if card.rank == KING else "kings_only"
            return None if self.builds_on(card, target[-1]) else "wrong_build"
        if dst[0] == "c":
            return "cell_occupied" if target else None
        if self.spot_suit[dst] is not card.suit:
            return "foundation_suit"
        return None if len(target) == card.rank - 1 else "foundation_order"

    def source_refusal(self, src: str, n: int) -> str | None:
        """Why ``n`` cards cannot be lifted from ``src`` at all (None: they can)."""
        if src[0] == "s":
            return "stock_source"
        have = len(self.piles[src])
        if have < n:
            return "empty_pile" if not have else "not_enough_cards"
        return None

    def run_length(self, src: str) -> int:
        """How many face-up cards at the top of column ``src`` form a run: each card
        builds on the one it covers, by the rules of this game."""
        pile = self.piles[src]
        bottom = self.down.get(src, 0)
        if len(pile) <= bottom:
            return 0
        length = 1
        for i in range(len(pile) - 1, bottom, -1):
            if not self.builds_on(pile[i], pile[i - 1]):
                break
            length += 1
        return length

    def foundation_for(self, card: Card) -> str | None:
        """The first foundation spot that accepts ``card`` (C7), if any."""
        for spot, suit in self.spot_suit.items():
            if suit is card.suit and len(self.piles[spot]) == card.rank - 1:
                return spot
        return None

    def capacity(self, dst: str) -> int:
        """Cards a group move to ``dst`` may lift (Seahaven; see there)."""
        return 1

    def refuse(self, reason: str, src: str = "", dst: str = "", n: int = 1) -> IllegalActionError:
        """Build the refusal for ``reason``, its sentence filled in from the position."""
        pile = self.piles.get(src, [])
        target = self.piles.get(dst, [])
        card = pile[-n] if 0 < n <= len(pile) else None
        if src == "s" or len(pile) - n < self.down.get(src, 0):
            card = None  # never name a face-down or stock card, not even in a refusal
        need = "nothing more: it is complete"
        if dst in self.spot_suit and len(target) < len(RANK_CHARS):
            # Spelled out, not "5H": it names a rank, not a card the player may not see.
            need = f"the {RANK_NAMES[len(target)]} of {SUIT_NAMES[self.spot_suit[dst]]}"
        top = target[-1] if target else None
        if dst == "s" or len(target) <= self.down.get(dst, 0):
            top = None  # the stock's top, or a face-down card: never named either
        sentence = self.reasons.get(reason) or COMMON_REASONS[reason]
        capacity = self.capacity(dst) if dst else 1
        spot = self.spot_suit.get(dst)
        message = fill(
            sentence,
            {
                "src": src,
                "dst": dst,
                "n": n,
                "have": len(pile),
                "card": card.text if card else "that card",
                "top": top.text if top else "an empty column",
                "spot_suit": SUIT_NAMES[spot] if spot is not None else "",
                "need": need,
                "capacity": capacity,
            },
        )
        params: dict[str, str | int | None] = {
            "src": src,
            "dst": dst,
            "n": n,
            "have": len(pile),
            "capacity": capacity,
            "card": card.text if card else None,
            "top": top.text if top else None,
            "spot_suit": spot.name if spot is not None else None,
            # The rank and suit the spot needs next — apart, like the sentence's
            # "the ace of clubs": they name a rank, not a card of the player's.
            "need_rank": RANK_CHARS[len(target)]
            if spot is not None and len(target) < len(RANK_CHARS)
            else None,
            "need_suit": spot.name if spot is not None else None,
        }
        return IllegalActionError(reason, message, params)

    def check_pile(self, pile: str) -> None:
        if pile not in self.piles:
            raise MalformedError("bad_pile", f"This game has no pile {pile!r}.")

    def resolve(self, action: Action) -> Move | Stock | Undo:
        """Check ``action`` against the rules and return the concrete action it makes.

        A tap or double tap becomes the move it makes, a drop on ``f`` names the
        spot. Raises :class:`IllegalActionError` (nothing changes) if refused.
        """
        if self.won:
            raise self.refuse("game_over")  # C19
        if isinstance(action, Move):
            src, dst, n = action.source, action.target, action.count
            self.check_pile(src)
            if dst == FOUNDATION_AREA:
                # "A card dropped anywhere on the foundation area finds by itself a
                # foundation that accepts it; if two accept it, it goes to the first" (A, C7).
                reason = self.source_refusal(src, n)
                if reason is None and src[0] == "f":
                    reason = "foundation_to_foundation"  # C16
                if reason is None and n > 1:
                    reason = "foundation_one_card"
                if reason:
                    raise self.refuse(reason, src, dst, n)
                spot = self.foundation_for(self.piles[src][-1])
                if spot is None:
                    raise self.refuse("no_foundation", src, dst, n)
                return Move(src, spot)
            self.check_pile(dst)
            if reason := self.refusal(src, dst, n):
                raise self.refuse(reason, src, dst, n)
            return action
        if isinstance(action, Tap):
            return self.resolve_tap(action)
        if isinstance(action, Stock):
            if reason := self.stock_refusal():
                raise self.refuse(reason)
            return action
        if not isinstance(action, Undo):  # the five kinds of actions.py are all there is
            raise TypeError(f"not an action: {action!r}")
        if not self.history:
            raise self.refuse("undo_limit" if self.depth else "no_undo")
        return action

    def resolve_tap(self, action: Tap) -> Move:
        """Tap: a foundation. Double tap: the order of RULES.md C14 (and C8, C9)."""
        src, n = action.source, action.count
        self.check_pile(src)
        if src[0] == "s":
            raise self.refuse("tap_stock", src)
        if src[0] == "f":
            raise self.refuse("tap_foundation", src)
        pile = self.piles[src]
        if len(pile) < n:
            raise self.refuse("empty_pile" if not pile else "not_enough_cards", src, "", n)
        if not isinstance(action, DoubleTap):
            if n > 1:
                raise self.refuse("tap_run", src, "", n)
            spot = self.foundation_for(pile[-1])
            if spot is None:
                raise self.refuse("no_foundation", src, "", n)
            return Move(src, spot)
        for dst in self.double_tap_order(src, n):
            if self.refusal(src, dst, n) is None:
                return Move(src, dst, n)
        raise self.refuse("no_place", src, "", n)

    def double_tap_order(self, src: str, n: int) -> Iterator[str]:
        """Where a double tap looks, in order (C14)."""
        if n == 1:
            spot = self.foundation_for(self.piles[src][-1])
            if spot is not None:
                yield spot
        # The longest column first, counting face-down cards; ties to the leftmost (C8).
        built = [t for t in self.columns if self.piles[t] and t != src]
        built.sort(key=lambda t: -len(self.piles[t]))
        yield from built
        # Moving a whole column into an empty one, or a cell's card into another
        # cell, would change nothing: a double tap never does it (C14).
        if not (src[0] == "t" and n == len(self.piles[src])):
            yield from (t for t in self.columns if not self.piles[t])
        if n == 1 and src[0] != "c":
            yield from (c for c in self.cells if not self.piles[c])

    # --- playing ---------------------------------------------------------------

    def apply(self, action: Action) -> Move | Stock | Undo:
        """Check and play ``action``; return it in its resolved (recorded) form."""
        resolved = self.resolve(action)
        self.play(resolved)
        return resolved

    def play(self, resolved: Move | Stock | Undo) -> None:
        """Play what :meth:`resolve` returned for this very position (checked then,
        not again): :meth:`apply` in two steps, for a caller that must decide
        between checking and changing the game."""
        if isinstance(resolved, Move):
            self.play_move(resolved)
        elif isinstance(resolved, Stock):
            self.history.append(self.play_stock())
            self.moves += 1  # a draw and a pass each count as a move (C5)
            self.depth += 1
        else:
            self.undo_step(self.history.pop())

    def apply_json(self, data: object) -> Move | Stock | Undo:
        """Parse an action from decoded JSON (untrusted), then :meth:`apply` it."""
        return self.apply(self.parse_action(data))

    def parse_action(self, data: object) -> Action:
        return Action.from_json(data, self.piles)

    def play_move(self, move: Move) -> None:
        src, dst, n = move.source, move.target, move.count
        source, target = self.piles[src], self.piles[dst]
        cards = source[-n:]
        del source[-n:]
        target.extend(cards)
        # A face-down card that becomes uncovered turns face up by itself (A).
        turned = 0 < self.down.get(src, 0) == len(source)
        if turned:
            self.down[src] -= 1
        delta, marked = self.points(src, dst, cards[0], turned)
        if marked:
            self.scored.add(cards[0].id)
        new_score = max(0, self.score + delta)  # the score never goes below 0
        self.history.append(Step(move, new_score - self.score, turned, marked))
        self.score = new_score
        self.moves += 1
        self.depth += 1
        if dst[0] == "f":
            self.won = sum(len(self.piles[f]) for f in self.foundations) == self.n_cards

    def play_stock(self) -> Step:
        raise self.refuse("no_stock")

    def undo_step(self, step: Step) -> None:
        """Reverse ``step`` exactly: cards, turned-up card, points, scored mark (C6, C18)."""
        action = step.action
        if isinstance(action, Move):
            src, dst, n = action.source, action.target, action.count
            target = self.piles[dst]
            cards = target[-n:]
            del target[-n:]
            if step.turned:
                self.down[src] += 1
            self.piles[src].extend(cards)
            if step.marked:
                self.scored.discard(cards[0].id)
        else:
            self.unplay_stock(step)
        self.score = max(0, self.score - step.score)
        self.depth -= 1

    def unplay_stock(self, step: Step) -> None:
        raise AssertionError("this game has no stock")

    # --- asking ----------------------------------------------------------------

    @property
    def legal_moves(self) -> LegalMoves:
        """Every legal concrete move (and the stock tap): iterate it or ask ``in``."""
        return LegalMoves(self)

    def is_legal(self, action: Action) -> bool:
        try:
            self.resolve(action)
        except (IllegalActionError, MalformedError):
            return False
        return True

    def sources(self) -> tuple[str, ...]:
        return self.columns + self.cells + self.foundations

    def generate_moves(self) -> Iterator[Move | Stock]:
        """The legal moves, listed once per position: the player's view (its
        ``dead_end``), the stored game and the targets each ask, every action.
        A position is known by ``(moves, depth)``: every move and draw raises
        ``moves``, every undo lowers ``depth``, so no pair comes back."""
        when = (self.moves, self.depth)
        listed = self.__dict__.get("_listed")
        if listed is None or listed[0] != when:
            listed = self._listed = (when, tuple(self._generate_moves()))
        return iter(listed[1])

    def _generate_moves(self) -> Iterator[Move | Stock]:
        if self.won:
            return
        if self.stock_refusal() is None:
            yield Stock()
        for src in self.sources():
            if not self.piles[src]:
                continue
            counts = [1, *self.group_counts(src)] if src[0] == "t" else [1]
            for n in counts:
                if self.source_refusal(src, n):
                    continue
                for dst in self.destinations:
                    if self.drop_refusal(src, dst, n) is None:
                        yield Move(src, dst, n)

    def finishing_moves(self) -> list[Move]:
        """Auto-finish (issue 15): when only foundation moves remain, the moves that
        take every card left to the foundations, each as :meth:`apply` would record
        it and in an order it accepts; otherwise (or when :meth:`may_finish` says
        no) an empty list.

        "Only foundation moves remain" means: playing top cards that a foundation
        accepts (:meth:`foundation_for`), again and again, wins the game. That is
        tried on a copy, each time with the lowest such card (the leftmost pile on
        a tie), so the cards go up rank by rank and the list depends on the
        position alone: after its first move, the new position lists the rest.
        The order of such moves never decides whether they win: a foundation
        move only uncovers cards and raises a spot; in Easy Harp, with every
        column one run (nothing face down, nothing in the stock or waste), the
        lowest card left is a top card one of its suit's spots accepts — so
        there a finish is listed whenever :meth:`may_finish` holds.
        """
        if self.won or not self.may_finish():
            return []
        # Cheap way out for most positions: no top card goes up at all. The move
        # list is made once per position anyway (the view's targets ask for it).
        if not any(
            isinstance(m, Move) and m.target[0] == "f" and m.source[0] != "f"
            for m in self.generate_moves()
        ):
            return []
        board = self.copy()
        sources = [s for s in self.sources() if s[0] != "f"]
        moves: list[Move] = []
        while not board.won:
            best: tuple[int, Move] | None = None
            for src in sources:
                pile = board.piles[src]
                if pile and (best is None or pile[-1].rank < best[0]):
                    spot = board.foundation_for(pile[-1])
                    if spot is not None:
                        best = (pile[-1].rank, Move(src, spot))
            if best is None:
                return []  # stuck: some card needs another kind of move first
            board.play_move(best[1])
            moves.append(best[1])
        return moves

    def targets(self, src: str, n: int = 1) -> list[str]:
        """Where the top ``n`` cards of ``src`` may go, as concrete pile ids."""
        self.check_pile(src)
        if self.won or len(self.piles[src]) < n or n < 1:
            return []
        return [d for d in self.destinations if self.refusal(src, d, n) is None]

    # --- loading, copying, comparing -------------------------------------------

    @classmethod
    def from_json(cls, data: object) -> Self:
        """Rebuild a game from :meth:`to_json` output, checking it thoroughly
        (``snapshot.py``: the checks live beside the format)."""
        game = cls(saved_code(data))
        restore(game, data)
        return game

    def copy(self) -> Game:
        """An independent copy (cheap: cards are shared, lists are not)."""
        other = object.__new__(type(self))
        other.__dict__.update(self.__dict__)
        other.piles = {p: list(pile) for p, pile in self.piles.items()}
        other.down = dict(self.down)
        other.history = deque(self.history, maxlen=UNDO_LIMIT)
        other.scored = set(self.scored)
        return other

    def key(self) -> tuple[object, ...]:
        return (
            str(self.code),
            tuple((p, tuple(c.id for c in pile)) for p, pile in self.piles.items()),
            tuple(self.down.items()),
            self.score,
            self.moves,
            self.won,
            tuple(self.history),
            self.depth,
            frozenset(self.scored),
        )

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Game):
            return NotImplemented
        return self.key() == other.key()

    __hash__ = None  # type: ignore[assignment]  # mutable

    def __repr__(self) -> str:
        return f"{type(self).__name__}({str(self.code)!r})  # after {self.moves} moves"

    def __str__(self) -> str:
        return json.dumps(self.view(full=True))


class LegalMoves:
    """The legal concrete moves of a position: iterate it, ``len`` it, ask ``in``.

    ``in`` accepts any action (a tap, a drop on ``f``…) and asks whether the
    game would accept it now.
    """

    def __init__(self, game: Game) -> None:
        self.game = game

    def __iter__(self) -> Iterator[Move | Stock]:
        return self.game.generate_moves()

    def __bool__(self) -> bool:
        return any(True for _ in self)

    def count(self) -> int:
        # Not __len__: list() would then generate every move twice.
        return sum(1 for _ in self)

    def __contains__(self, action: object) -> bool:
        if not isinstance(action, Move | Stock | Tap | Undo):
            return False
        return self.game.is_legal(action)

    def __repr__(self) -> str:
        return f"<LegalMoves: {', '.join(map(repr, self))}>"
