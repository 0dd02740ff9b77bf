"""The undo history: what each accepted action changed, and how far back undo
reaches. :class:`~games.engine.base.Game` pushes a :class:`Step` per action and
pops it to undo (RULES.md C6); ``snapshot.py`` stores and checks the steps."""

from __future__ import annotations

from typing import Any, NamedTuple

from .actions import Move, Stock

UNDO_LIMIT = 100
"""Undo covers the last 100 accepted actions (RULES.md A, B, C6, C18)."""


class Step(NamedTuple):
    """One accepted action and what it changed, so that undo reverses it exactly."""

    action: Move | Stock
    score: int
    """Points actually added (after the clamp at 0); undo takes exactly these off."""
    turned: bool = False
    """The move turned up the face-down card it uncovered."""
    marked: bool = False
    """The move set the card's "already scored" mark (RULES.md C3, C18)."""
    passed: bool = False
    """A stock tap that turned the waste over into a new pass (C15)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {"action": self.action.to_json(), "score": self.score}
        for flag in ("turned", "marked", "passed"):
            if getattr(self, flag):
                data[flag] = True
        return data
