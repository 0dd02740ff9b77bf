"""The confusables skeleton of a username (Unicode UTS #39, section 4): two names
with the same skeleton look alike (Latin ``adam`` and Cyrillic ``аdam``,
``ａｄａｍ``, ``rn`` and ``m``, ``l``, ``I`` and ``1``), so the second is refused
and nobody can pass for a leader.

The table is Unicode's confusables.txt as the ``confusable-homoglyphs`` package
ships it (``confusables.json``, offline): for each line ``source → prototype``
it lists the pair both ways. The direction is recovered here: a source maps to
one prototype; a character listed against several is a prototype; a string of
several characters is always a prototype. A pair listed only against each
other is mapped to its smaller code point, which gives the same equality.

Unlike a bare UTS #39 skeleton, case is folded too (names are unique whatever
their case), before and after the mapping until nothing changes: ``I`` maps to
``l`` before folding would make it ``i``, and ``0`` maps to ``O``, folded to ``o``.
"""

from __future__ import annotations

import functools
import json
import unicodedata
from importlib.resources import files

MARKS = "\u200e\u200f"
"""confusables.json wraps right-to-left characters in direction marks."""


@functools.cache
def prototypes() -> dict[str, str]:
    """Each confusable character → the string it is drawn like."""
    raw = json.loads(files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    pairs: dict[str, set[str]] = {}
    for key, entries in raw.items():
        for entry in entries:
            a, b = key.strip(MARKS), entry["c"].strip(MARKS)
            if a and b and a != b:
                pairs.setdefault(a, set()).add(b)
                pairs.setdefault(b, set()).add(a)
    table: dict[str, str] = {}
    for char, others in pairs.items():
        if len(char) != 1 or len(others) != 1:
            continue  # a prototype (listed against several, or several characters)
        (other,) = others
        if len(other) > 1 or len(pairs[other]) > 1 or char > other:
            table[char] = other
    return table


def _mapped(text: str) -> str:
    table = prototypes()
    nfd = unicodedata.normalize("NFD", text)
    return unicodedata.normalize("NFD", "".join(table.get(char, char) for char in nfd))


def username_skeleton(name: str) -> str:
    """What ``name`` looks like: NFKC, then the confusables mapping (NFD before and
    after, as UTS #39 says) and case folding, repeated until nothing changes."""
    text = unicodedata.normalize("NFKC", name)
    for _ in range(8):  # settles in two or three rounds
        folded = _mapped(text).casefold()
        if folded == text:
            break
        text = folded
    return text
