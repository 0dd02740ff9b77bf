"""The engine's two kinds of error, both ``ValueError`` (RULES.md C12, C20).

``MalformedError``: the input is not a well-formed action, state or code at all
(bad JSON, wrong types, unknown piles or fields). ``IllegalActionError``: the
action is well formed but the rules refuse it here. Each carries a
machine-readable ``code`` and a one-sentence ``message`` naming the rule; the
web layer renders both as ``{"error": {"code", "message"}}``.
"""

from __future__ import annotations


class EngineError(ValueError):
    """Base of every error the engine raises on purpose."""

    def __init__(
        self, code: str, message: str, params: dict[str, str | int | None] | None = None
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.params = params or {}
        """What the sentence was filled in with (card texts, piles, numbers), so a
        client can say it in another language from the ``code`` (issue 6)."""
        self.index: int | None = None
        """Set by :func:`replay`: the position of the refused action in the list."""

    def to_json(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.code!r}, {self.message!r})"


class MalformedError(EngineError):
    """The input is not well formed: it does not describe any action, state or code."""


class IllegalActionError(EngineError):
    """A well-formed action that the rules of this game refuse in this position."""
