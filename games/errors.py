"""Refusals of the game services: what is wrong, in our codes and words, and of
which kind — not how a transport says it. The edges map each kind to their own
terms: an HTTP status in ``kit/errors.py`` (for the REST views and, as
``error`` messages, the websocket consumers). The engine's refusals
(``games.engine.errors``) are mapped there too."""

from __future__ import annotations

from typing import Any


class GameError(Exception):
    """A refusal: ``code`` (stable, for clients), ``message`` (a sentence for the
    player), ``extra`` fields beside them (e.g. the ``seq`` to send)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


class Invalid(GameError):
    """The request does not make sense (fields that do not go together)."""


class NotFound(GameError):
    """No such game (or none the requester may know of)."""


class Forbidden(GameError):
    """The game exists, but the requester may not do this to it."""


class Conflict(GameError):
    """Well formed and allowed, but the game's state refuses it now."""
