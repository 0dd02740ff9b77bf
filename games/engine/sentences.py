"""The engine's sentences: English source strings marked for translation, never
translated here (the engine stays free of Django).

A game declares its display names and its refusal sentences with these markers
(``spec.py``, ``COMMON_REASONS`` below, each game's ``reasons``); ``make
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


COMMON_REASONS: dict[str, Sentence] = {
    "game_over": gettext_noop("The game is won; no further action is accepted, not even undo."),
    "same_pile": gettext_noop("A card has to move to another pile."),
    "empty_pile": gettext_noop("There is no card on %(src)s to move."),
    "not_enough_cards": ngettext_noop(
        "%(src)s holds %(have)s card; %(n)s cannot be moved from it.",
        "%(src)s holds %(have)s cards; %(n)s cannot be moved from it.",
        count="have",
    ),
    "face_down": gettext_noop(
        "Only face-up cards move; %(n)s cards from %(src)s would take face-down ones too."
    ),
    "foundation_to_foundation": gettext_noop(
        "Foundations are not a source for foundations: a card taken back from a foundation "
        "goes into the play area."
    ),
    "take_back_one_card": gettext_noop(
        "Only the top card of a foundation can be taken back, one at a time."
    ),
    "foundation_one_card": gettext_noop("Cards go onto a foundation one at a time."),
    "foundation_suit": gettext_noop(
        "Each foundation spot takes only its own suit: %(dst)s is for %(spot_suit)s, not %(card)s."
    ),
    "foundation_order": gettext_noop(
        "A foundation is built up in suit from the ace, one rank at a time: %(dst)s needs "
        "%(need)s, not %(card)s."
    ),
    "no_foundation": gettext_noop(
        "No foundation accepts %(card)s: each takes its own suit, ace first, then one rank at "
        "a time."
    ),
    "no_undo": gettext_noop("There is nothing to undo."),
    "undo_limit": gettext_noop("Undo covers only the last 100 actions."),
    "tap_stock": gettext_noop("Taps are for cards; the stock has its own action."),
    "tap_foundation": gettext_noop(
        "A tap sends a card to a foundation; a card already on a foundation is taken back by "
        "dragging it."
    ),
    "tap_run": gettext_noop("A tap sends one card to a foundation; a run cannot go there."),
    "no_place": gettext_noop("Double tap found no place for %(card)s."),
}
"""The refusal sentences every game shares (C12), each a ``%(name)s`` template
(``sentences.py``); a game's own ``reasons`` add to them or replace one."""
