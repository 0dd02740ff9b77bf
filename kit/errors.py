"""Saying no in the domain's words: one vocabulary of refusals, knowing nothing
of HTTP (STYLE.md). Services and selectors raise a :class:`Refusal` of one kind
(:class:`Invalid`, :class:`Forbidden`, :class:`NotFound`, :class:`Conflict`,
:class:`Gone`, :class:`Illegal`); the doors answer each kind in their own terms
(``kit/http.py``: an HTTP status, the error shape of PRODUCT.md). Errors of code
that cannot import this module (the engine's) are said as a kind by a
registration where the app meets the kit (:func:`describe_as`).

Pure Python: no Django, no app."""

from __future__ import annotations

from typing import Any


class Refusal(Exception):
    """A refusal in the domain's words: ``code`` (stable, for clients),
    ``message`` (a sentence for the player), ``extra`` fields beside them
    (``params`` a client fills its own sentence with, the ``seq`` to send)."""

    def __init__(self, code: str, message: str, **extra: Any) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.extra = extra


class Invalid(Refusal):
    """The request does not make sense (a field out of range, fields that do
    not go together, input that is not well formed)."""


class Forbidden(Refusal):
    """It exists, but the requester may not do this to it."""


class NotFound(Refusal):
    """No such thing (or none the requester may know of)."""


class Conflict(Refusal):
    """Well formed and allowed, but the state of things refuses it now."""


class Gone(Refusal):
    """It was there and is no more (a game's moves archived)."""


class Illegal(Refusal):
    """A well-formed action the rules refuse in this position (RULES.md C12);
    ``params`` say what the sentence was filled in with."""


_SAID_AS: dict[type[Exception], tuple[type[Refusal], tuple[str, ...]]] = {}


def describe_as(error: type[Exception], kind: type[Refusal], *fields: str) -> None:
    """Answer ``error`` (an exception with ``code`` and ``message``, of code that
    cannot know this module) as a refusal of ``kind``, its ``fields`` beside
    them: ``describe_as(IllegalActionError, Illegal, "params")``."""
    _SAID_AS[error] = (kind, fields)


def as_refusal(exc: Exception) -> Refusal | None:
    """``exc`` as the refusal it is answered as: itself, or a registered foreign
    error said as its kind (``describe_as``); None for anything else."""
    if isinstance(exc, Refusal):
        return exc
    for cls in type(exc).__mro__:
        said = _SAID_AS.get(cls)
        if said is not None:
            kind, fields = said
            extra = {field: getattr(exc, field) for field in fields}
            return kind(getattr(exc, "code", "invalid"), getattr(exc, "message", str(exc)), **extra)
    return None
