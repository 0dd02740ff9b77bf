"""The JSON forms of a game (README, "State JSON"): the player's view and the
full view of PRODUCT.md's State, the stored form, and where each movable pile's
cards may go.

:class:`Views` is a base of :class:`~games.engine.base.Game`, which this module
does not import: it names what the forms read of a game — its position and a
few answers of its rules (the dead end, the auto-finish moves, what a stock tap
does, the legal moves and where a double tap goes) — and ``Game`` provides them.
Each form is built once per position and asked for every action (issue 38).
Reading the stored form back is ``snapshot.py``'s (``Game.from_json``).
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections import deque
from collections.abc import Iterator
from typing import Any

from .actions import Move, Stock
from .cards import Card
from .codes import GameCode
from .history import Step

STOCK_TAPS_AHEAD = 5
"""The stock taps a view says the effect of (``Game.stock_taps``): the one the
client sends now and the four its feed queues at most behind it (feed.js)."""


class Views(ABC):
    """The JSON forms of a game in progress, :class:`~games.engine.base.Game`'s."""

    # What the forms read of the game, all of it ``Game``'s.
    code: GameCode
    piles: dict[str, list[Card]]
    down: dict[str, int]
    score: int
    moves: int
    won: bool
    history: deque[Step]
    depth: int
    scored: set[int]

    @abstractmethod
    def face_down(self, pile_id: str) -> int: ...

    @abstractmethod
    def dead_end(self) -> bool: ...

    @abstractmethod
    def finishing_moves(self) -> list[Move]: ...

    @abstractmethod
    def stock_refusal(self) -> str | None: ...

    @abstractmethod
    def play_stock(self) -> Step: ...

    @abstractmethod
    def unplay_stock(self, step: Step) -> None: ...

    @abstractmethod
    def generate_moves(self) -> Iterator[Move | Stock]: ...

    @abstractmethod
    def double_tap_order(self, src: str, n: int) -> Iterator[str]: ...

    # --- the forms -------------------------------------------------------------

    def view(self, *, full: bool = False) -> dict[str, Any]:
        """The State JSON of PRODUCT.md: the player's view, or the ``full`` view.

        In the player's view every face-down card and every stock card is ``None``
        (JSON ``null``); only the count of such cards shows. The player's view
        adds ``finish``: :meth:`finishing_moves` as action JSON (``[]`` when not
        in that state), and in a game with a stock ``stock``: what a stock tap
        does now.

        Both come from one build per position (the stored game and the player's
        answer each ask, every action: issue 38); each call returns a dict of its
        own, whose pile lists are shared and must not be changed in place.
        """
        when = (self.moves, self.depth)
        known = self.__dict__.get("_full_view")
        if known is None or known[0] != when:
            known = self._full_view = (when, self._full_view_built())
        base: dict[str, Any] = known[1]
        view = {**base, "piles": dict(base["piles"]), "down": dict(base["down"])}
        if full:
            return view
        piles = view["piles"]
        for pid in piles:
            hidden = self.face_down(pid)
            if hidden:
                piles[pid] = [None] * hidden + piles[pid][hidden:]
        # What a "Finish" button plays (issue 15): the player's business only.
        view["finish"] = [m.to_json() for m in self.finishing_moves()]
        if "s" in piles:
            # What a stock tap does now (issue 39), so a client draws it at once:
            # "draw" (the stock's top card to the waste), "pass" (the waste turned
            # over into the stock) or None (refused).
            playable = not self.won and self.stock_refusal() is None
            view["stock"] = ("draw" if piles["s"] else "pass") if playable else None
            view["stock_taps"] = self.stock_taps(STOCK_TAPS_AHEAD)
        return view

    def stock_taps(self, n: int) -> list[str]:
        """What the next ``n`` stock taps do in turn — ``"draw"`` or ``"pass"``,
        as far as each is allowed — played on this position and taken back, so a
        client draws taps made while one is in flight (issue 39). Counts only:
        which of the two a tap does follows from how many cards the stock and
        waste hold, never from which."""
        taps: list[str] = []
        steps: list[Step] = []
        try:
            while len(taps) < n and not self.won and self.stock_refusal() is None:
                step = self.play_stock()
                steps.append(step)
                taps.append("pass" if step.passed else "draw")
        finally:
            for step in reversed(steps):
                self.unplay_stock(step)
        return taps

    def _full_view_built(self) -> dict[str, Any]:
        return {
            "code": str(self.code),
            "variant": self.code.variant_id,
            "piles": {pid: [c.text for c in pile] for pid, pile in self.piles.items()},
            "down": dict(self.down),
            "score": self.score,
            "moves": self.moves,
            "won": self.won,
            "undo": len(self.history),
            "dead_end": self.dead_end(),
        }

    def to_json(self) -> dict[str, Any]:
        """Everything, for storing and restoring: the full view plus card identities
        (Easy Harp's twins), the scored marks and the undo history."""
        data = self.view(full=True)
        data["ids"] = {pid: [c.id for c in pile] for pid, pile in self.piles.items()}
        data["scored"] = sorted(self.scored)
        data["history"] = [step.to_json() for step in self.history]
        data["depth"] = self.depth
        return data

    def targets_json(self) -> list[dict[str, Any]]:
        """All legal moves grouped by what is lifted: ``[{"from", "count", "to": [...]}]``,
        each with ``"tap"``, the pile of ``to`` a double tap of those cards plays
        them to (C14: the first of :meth:`double_tap_order` that is legal), when
        it plays them anywhere — so a client draws a tap at once without holding
        the order (issue 24)."""
        grouped: dict[tuple[str, int], list[str]] = {}
        for move in self.generate_moves():
            if isinstance(move, Move):
                grouped.setdefault((move.source, move.count), []).append(move.target)
        targets = []
        for (src, n), to in grouped.items():
            target: dict[str, Any] = {"from": src, "count": n, "to": to}
            if src[0] != "f":  # a foundation's card is never tapped (C13)
                legal = set(to)
                tap = next((d for d in self.double_tap_order(src, n) if d in legal), None)
                if tap is not None:
                    target["tap"] = tap
            targets.append(target)
        return targets
