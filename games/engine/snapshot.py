"""Loading a game back from :meth:`Game.to_json` output, trusting nothing.

The server stores each game as this JSON; loading it again must give exactly
the same game (``Game.from_json(g.to_json()) == g``). Anything inconsistent —
a card missing or twice, a pile the game does not have, cards that disagree
with their ids, a foundation out of order — is a :class:`MalformedError`
naming what is wrong.
"""

from __future__ import annotations

from collections import deque
from typing import Any, ClassVar, Protocol

from .actions import Move, Stock
from .cards import CARDS, Card, Suit
from .codes import GameCode
from .errors import MalformedError
from .history import UNDO_LIMIT, Step


class Position(Protocol):
    """What loading fills in: a freshly dealt game (``base.Game``, which calls
    :func:`restore` from ``Game.from_json``; this module does not import it)."""

    title: ClassVar[str]
    n_cards: ClassVar[int]
    hides_cards: ClassVar[bool]
    pile_ids: tuple[str, ...]
    columns: tuple[str, ...]
    cells: tuple[str, ...]
    foundations: tuple[str, ...]
    spot_suit: dict[str, Suit]
    piles: dict[str, list[Card]]
    down: dict[str, int]
    score: int
    moves: int
    won: bool
    scored: set[int]
    history: deque[Step]
    depth: int


def _bad(what: str) -> MalformedError:
    return MalformedError("bad_state", f"Not a saved game: {what}.")


def _int(data: dict[str, Any], key: str, low: int = 0) -> int:
    value = data.get(key)
    if type(value) is not int or value < low:
        raise _bad(f"'{key}' must be an integer of at least {low}")
    return value


def _bool(data: dict[str, Any], key: str) -> bool:
    value = data.get(key, False)
    if type(value) is not bool:
        raise _bad(f"'{key}' must be true or false")
    return value


def saved_code(data: object) -> GameCode:
    """The code of a saved game (which game to build before :func:`restore`)."""
    if not isinstance(data, dict):
        raise _bad("expected a JSON object")
    return GameCode.parse(data.get("code"))


def restore(game: Position, data: object) -> None:
    """Set ``game``, freshly dealt from ``saved_code(data)``, to the saved position."""
    if not isinstance(data, dict):
        raise _bad("expected a JSON object")
    cls = type(game)
    ids = data.get("ids")
    piles = data.get("piles")
    if not isinstance(ids, dict) or set(ids) != set(game.pile_ids):
        raise _bad(f"'ids' must list exactly the piles {', '.join(game.pile_ids)}")
    if not isinstance(piles, dict) or set(piles) != set(game.pile_ids):
        raise _bad(f"'piles' must list exactly the piles {', '.join(game.pile_ids)}")
    seen: set[int] = set()
    for pid in game.pile_ids:
        pile_ids, texts = ids[pid], piles[pid]
        if not isinstance(pile_ids, list) or not all(
            type(i) is int and 0 <= i < cls.n_cards for i in pile_ids
        ):
            raise _bad(f"ids of {pid} must be card ids from 0 to {cls.n_cards - 1}")
        cards = [CARDS[i] for i in pile_ids]
        if texts != [c.text for c in cards]:
            raise _bad(f"the cards of {pid} do not match their ids")
        seen.update(pile_ids)
        game.piles[pid] = cards
    if len(seen) != cls.n_cards or sum(len(p) for p in game.piles.values()) != cls.n_cards:
        raise _bad(f"every one of the {cls.n_cards} cards must be in exactly one pile")
    for spot in game.foundations:
        pile = game.piles[spot]
        if any(c.suit is not game.spot_suit[spot] or c.rank != r for r, c in enumerate(pile, 1)):
            raise _bad(f"foundation {spot} is not its suit built up from the ace")
    if len(game.cells) and any(len(game.piles[c]) > 1 for c in game.cells):
        raise _bad("a cell holds at most one card")

    down = data.get("down")
    if not isinstance(down, dict) or set(down) != set(game.columns):
        raise _bad(f"'down' must list exactly the columns {', '.join(game.columns)}")
    for column in game.columns:
        n = down[column]
        size = len(game.piles[column])
        if type(n) is not int or not (0 <= n < size or n == size == 0):
            raise _bad(f"column {column} cannot have {n!r} face-down cards")
        if n and not cls.hides_cards:  # the game's declaration, not its card count
            raise _bad(f"{cls.title} deals every card face up")
        game.down[column] = n

    game.score = _int(data, "score")
    game.moves = _int(data, "moves")
    game.won = _bool(data, "won")
    on_foundations = sum(len(game.piles[f]) for f in game.foundations)
    if game.won != (on_foundations == cls.n_cards):
        raise _bad("'won' must be true exactly when every card is on the foundations")
    scored = data.get("scored", [])
    if not isinstance(scored, list) or not all(type(i) is int and i in seen for i in scored):
        raise _bad("'scored' must list card ids")
    game.scored = set(scored)

    history = data.get("history", [])
    if not isinstance(history, list) or len(history) > UNDO_LIMIT:
        raise _bad(f"'history' must be a list of at most {UNDO_LIMIT} steps")
    game.history = deque((_step(game, s) for s in history), maxlen=UNDO_LIMIT)
    game.depth = _int(data, "depth", low=len(game.history))
    if game.depth > game.moves:
        raise _bad("'depth' cannot exceed 'moves'")


_STEP_KEYS = frozenset({"action", "score", "turned", "marked", "passed"})
_MOVE_KEYS = frozenset({"type", "from", "to", "count"})
_STOCK = Stock()


def _resolved(data: object, piles: dict[str, Any]) -> Move | Stock:
    """A recorded action: a move between two of the game's piles, or a stock tap.
    (Stricter and faster than :meth:`Action.from_json`: a game holds up to 100.)"""
    if type(data) is dict:
        if data.keys() == _MOVE_KEYS and data["type"] == "move":
            src, dst, n = data["from"], data["to"], data["count"]
            if src in piles and dst in piles and type(n) is int and n >= 1:
                return Move(src, dst, n)
        elif data == {"type": "stock"}:
            return _STOCK
    raise _bad("history holds only resolved moves and stock taps")


def _step(game: Position, data: object) -> Step:
    if type(data) is not dict or not data.keys() <= _STEP_KEYS:
        raise _bad("a history step is an object with 'action' and 'score'")
    score = data.get("score")
    if type(score) is not int:
        raise _bad("a history step's 'score' must be an integer")
    return Step(
        _resolved(data.get("action"), game.piles),
        score,
        _bool(data, "turned"),
        _bool(data, "marked"),
        _bool(data, "passed"),
    )
