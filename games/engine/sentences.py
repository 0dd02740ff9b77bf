"""The engine's sentences: English source strings marked for translation, never
translated here (the engine stays free of Django).

A game declares its display names and its refusal sentences with these markers
(``spec.py``, ``base.COMMON_REASONS``, each game's ``reasons``); ``make
messages`` finds them by the markers' names (``gettext_noop``, and
``ngettext_noop`` for a sentence with a singular and a plural, listed in
``frontend/management/commands/makemessages.py``), and the web layer ships them
translated to the client (``frontend/catalogue.py``).

Refusal sentences are ``%(name)s`` templates, the form gettext catalogs check
and the client fills (``reasons.js``): the engine fills them for its English
``message``, the client from the error's ``params`` in the player's language.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass


def gettext_noop(message: str) -> str:
    """Mark ``message`` for translation without translating it (as Django's
    function of that name): ``makemessages`` finds the call by its name."""
    return message


@dataclass(frozen=True)
class Plural:
    """A sentence with a singular and a plural, chosen by the parameter ``count``
    names (``"have"``: the number of cards a pile holds)."""

    one: str
    other: str
    count: str

    def choose(self, number: object) -> str:
        """The English form for ``number`` (a catalog chooses by its language's rule)."""
        return self.one if number == 1 else self.other


def ngettext_noop(one: str, other: str, *, count: str) -> Plural:
    """Mark a singular/plural pair for translation (``makemessages`` keyword
    ``ngettext_noop:1,2``)."""
    return Plural(one, other, count)


Sentence = str | Plural
"""A refusal sentence: one template, or a singular and a plural."""


def fill(sentence: Sentence, fields: Mapping[str, object]) -> str:
    """The English sentence with its ``%(name)s`` fields filled in."""
    template = sentence.choose(fields[sentence.count]) if isinstance(sentence, Plural) else sentence
    return template % fields
