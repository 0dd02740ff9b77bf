"""Actions: small frozen values with a JSON form that round-trips (PRODUCT.md, Actions).

``repr`` rebuilds the value (``Move('t3', 't7')``), so a failing test can be
pasted back in. :meth:`Action.from_json` parses untrusted input strictly
(RULES.md C20): wrong types, unknown types or piles, missing or extra fields are
:class:`MalformedError`. Whether a well-formed action is *legal* is the game's
business, not this module's.
"""

from __future__ import annotations

import json
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any, ClassVar, Self

from .errors import MalformedError

FOUNDATION_AREA = "f"
"""Destination meaning "the first foundation spot that accepts the card" (C7)."""


class Action:
    """Any action a player may send: :class:`Move`, :class:`Stock`, :class:`Tap`,
    :class:`DoubleTap` or :class:`Undo`.

    >>> Action.from_json({"type": "move", "from": "t3", "to": "f"})
    Move('t3', 'f')
    >>> Move.from_json({"type": "undo"})
    Traceback (most recent call last):
    ...
    games.engine.errors.MalformedError: Expected a move action, got 'undo'.
    """

    __slots__ = ()
    type: ClassVar[str]

    def to_json(self) -> dict[str, Any]:
        raise NotImplementedError

    @classmethod
    def from_json(cls, data: object, piles: Collection[str] | None = None) -> Self:
        """Parse an action from decoded JSON, strictly (C20). ``piles``: the game's
        pile ids, if known. On a subclass, only that kind of action is accepted."""
        action = _parse(data, piles)
        if not isinstance(action, cls):
            raise MalformedError(
                "bad_action_type", f"Expected a {cls.type} action, got {action.type!r}."
            )
        return action


@dataclass(frozen=True, slots=True)
class Move(Action):
    """Move the top ``count`` cards of ``source`` onto ``target``."""

    source: str
    target: str
    count: int = 1
    type: ClassVar[str] = "move"

    def to_json(self) -> dict[str, Any]:
        return {"type": "move", "from": self.source, "to": self.target, "count": self.count}

    def __repr__(self) -> str:
        extra = f", {self.count}" if self.count != 1 else ""
        return f"Move({self.source!r}, {self.target!r}{extra})"


@dataclass(frozen=True, slots=True)
class Stock(Action):
    """Tap the stock (Easy Harp): draw one card, or start a new pass when it is empty."""

    type: ClassVar[str] = "stock"

    def to_json(self) -> dict[str, Any]:
        return {"type": "stock"}

    def __repr__(self) -> str:
        return "Stock()"


@dataclass(frozen=True, slots=True)
class Tap(Action):
    """Send the top card of ``source`` to a foundation that accepts it."""

    source: str
    count: int = 1
    type: ClassVar[str] = "tap"

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"type": self.type, "from": self.source}
        if self.count != 1:
            data["count"] = self.count
        return data

    def __repr__(self) -> str:
        extra = f", {self.count}" if self.count != 1 else ""
        return f"{type(self).__name__}({self.source!r}{extra})"


@dataclass(frozen=True, slots=True, repr=False)
class DoubleTap(Tap):
    """The app's double tap: the first place found in the order of RULES.md C14."""

    type: ClassVar[str] = "double_tap"


@dataclass(frozen=True, slots=True)
class Undo(Action):
    """Take back the last accepted action (C6)."""

    type: ClassVar[str] = "undo"

    def to_json(self) -> dict[str, Any]:
        return {"type": "undo"}

    def __repr__(self) -> str:
        return "Undo()"


_FIELDS: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    # type: (required fields, optional fields), besides "type"
    "move": (frozenset({"from", "to"}), frozenset({"count"})),
    "stock": (frozenset(), frozenset()),
    "tap": (frozenset({"from"}), frozenset({"count"})),
    "double_tap": (frozenset({"from"}), frozenset({"count"})),
    "undo": (frozenset(), frozenset()),
}


def _count(data: dict[str, Any]) -> int:
    if "count" not in data:
        return 1
    count = data["count"]
    # bool is an int subclass in Python; JSON true is not a count (C20).
    if type(count) is not int or count < 1:
        raise MalformedError(
            "bad_count", f"'count' must be a whole number of cards, 1 or more; got {count!r}."
        )
    return count


def _pile(data: dict[str, Any], key: str, piles: Collection[str] | None, *, area: bool) -> str:
    pile = data[key]
    if not isinstance(pile, str):
        raise MalformedError("bad_pile", f"'{key}' must be a pile id such as 't3'; got {pile!r}.")
    if pile == FOUNDATION_AREA:
        if area:
            return pile
        raise MalformedError(
            "bad_pile", "'f' (the foundation area) is only a destination, never a source."
        )
    if piles is not None and pile not in piles:
        raise MalformedError("bad_pile", f"This game has no pile {pile!r}.")
    return pile


def _parse(data: object, piles: Collection[str] | None) -> Action:
    if not isinstance(data, dict):
        raise MalformedError("bad_action", "An action is a JSON object with a 'type'.")
    kind = data.get("type")
    if not isinstance(kind, str) or kind not in _FIELDS:
        raise MalformedError(
            "bad_action_type",
            f"Unknown action type {kind!r}; use one of: {', '.join(_FIELDS)}.",
        )
    required, optional = _FIELDS[kind]
    keys = set(data) - {"type"}
    if missing := required - keys:
        raise MalformedError(
            "missing_field", f"A {kind} action needs {', '.join(sorted(missing))}."
        )
    if extra := keys - required - optional:
        raise MalformedError(
            "extra_field", f"A {kind} action has no field {', '.join(sorted(extra))}."
        )
    if kind == "move":
        source = _pile(data, "from", piles, area=False)
        return Move(source, _pile(data, "to", piles, area=True), _count(data))
    if kind in ("tap", "double_tap"):
        cls = Tap if kind == "tap" else DoubleTap
        return cls(_pile(data, "from", piles, area=False), _count(data))
    return Stock() if kind == "stock" else Undo()


def parse_action(text: str | bytes, piles: Collection[str] | None = None) -> Action:
    """Parse an action from JSON text."""
    try:
        data = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise MalformedError("bad_json", f"The action is not valid JSON: {exc}.") from None
    return Action.from_json(data, piles)
