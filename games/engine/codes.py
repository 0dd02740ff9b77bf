"""Game codes (RULES.md C2, C2b): ``GAME RULESVERSION - VARIANT - DEAL``.

``EH1-N-AAAAAAF`` is Easy Harp rules version 1, variant N, deal 5. DEAL is
written in base 32 over ``ABCDEFGHIJKLMNOPQRSTUVWXYZ234567`` (A = 0 … 7 = 31),
most significant digit first, in one of two lengths:

- 7 characters: a **numbered deal**, 1..999 999 (C2), public;
- 26 characters: a **deal key**, a 128-bit number 1..2^128 - 1 (C2b). 26
  characters hold 130 bits; the two spare leading bits are zero, so a key
  starts with one of A-H (its first digit carries the key's top 3 bits).
  Ranked daily deals use keys derived from a secret, so nobody can enumerate
  them.

A key is never a numbered deal in disguise: ``long`` is part of the code, and
the two kinds are shuffled from different streams (``shuffle.py``), so key 5
and deal 5 are different cards.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple, TypeGuard

from .errors import MalformedError

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
DEAL_DIGITS = 7
MIN_DEAL = 1
MAX_DEAL = 999_999
KEY_DIGITS = 26
MIN_KEY = 1
MAX_KEY = (1 << 128) - 1
_KEY_FIRST = ALPHABET[: 1 << (128 - 5 * (KEY_DIGITS - 1))]
"""``"ABCDEFGH"``: a key's first digit holds its top 3 bits under the two spare ones."""

_VARIANTS: dict[str, tuple[str, ...]] = {}
"""Known games (name + rules version) and their variant letters, in order: filled
by ``registry.py`` from each game's declaration (:func:`register_variants`)."""


def register_variants(game: str, variants: tuple[str, ...]) -> None:
    """Make codes of ``game`` with these variant letters valid (``registry.py``)."""
    _VARIANTS[game] = variants


def unregister_variants(game: str) -> None:
    """Make codes of ``game`` invalid again (``registry.unregister``)."""
    del _VARIANTS[game]


def _variant_ids() -> str:
    return ", ".join(Variant(g, v).id for g, vs in _VARIANTS.items() for v in vs)


_DIGITS = frozenset(ALPHABET)
_SHIFTS = {width: range(10 * (width // 2) - 10, -1, -10) for width in (DEAL_DIGITS, KEY_DIGITS)}
_TO_INT_BASE_32 = str.maketrans(ALPHABET, "0123456789abcdefghijklmnopqrstuv")
_PAIRS = [a + b for a in ALPHABET for b in ALPHABET]
"""Every two-digit string by its 10-bit value: half the steps of digit by digit."""


def _encode(number: int, width: int) -> str:
    """``number`` as ``width`` base-32 digits, most significant first (range checked by callers).

    Two digits a step: ``str(code)`` is in every view the server sends, so
    this is on the action path (a 26-digit key costs 13 lookups).
    """
    head = ALPHABET[(number >> (5 * width - 5)) & 31] if width % 2 else ""
    return head + "".join([_PAIRS[(number >> shift) & 1023] for shift in _SHIFTS[width]])


def _decode(text: str) -> int:
    """Base-32 digits (upper case) → their number; a bad character is named."""
    if not _DIGITS.issuperset(text):
        ch = next(ch for ch in text if ch not in _DIGITS)
        raise MalformedError(
            "bad_code", f"{ch!r} is not a deal digit; use the letters A-Z and the digits 2-7."
        )
    # Only ALPHABET's characters are left, so int() sees plain digits 0-9a-v
    # (never the signs, spaces or underscores it would otherwise accept).
    return int(text.translate(_TO_INT_BASE_32), 32)


def _is_int(value: object) -> TypeGuard[int]:
    # bool is an int subclass, but True is no deal number.
    return isinstance(value, int) and not isinstance(value, bool)


def _check_number(number: object) -> None:
    if not _is_int(number) or not MIN_DEAL <= number <= MAX_DEAL:
        raise MalformedError(
            "bad_code", f"Deal numbers run from {MIN_DEAL} to {MAX_DEAL:,}; {number!r} is outside."
        )


def _check_key(key: object) -> None:
    if not _is_int(key) or not MIN_KEY <= key <= MAX_KEY:
        raise MalformedError(
            "bad_code", f"Deal keys run from {MIN_KEY} to 2^128 - 1; {key!r} is outside."
        )


def encode_deal(number: int) -> str:
    """``5`` → ``"AAAAAAF"``: a numbered deal's seven characters."""
    _check_number(number)
    return _encode(number, DEAL_DIGITS)


def decode_deal(text: str) -> int:
    """``"AAAAAJ2"`` → ``314``; case-insensitive. Numbered deals only (see :func:`decode_key`)."""
    text = text.upper()
    if len(text) != DEAL_DIGITS:
        raise MalformedError(
            "bad_code",
            f"The deal part {text!r} must be {DEAL_DIGITS} characters long, not {len(text)}.",
        )
    number = _decode(text)
    if not MIN_DEAL <= number <= MAX_DEAL:
        raise MalformedError(
            "bad_code", f"Deal numbers run from {MIN_DEAL} to {MAX_DEAL:,}; {text} is {number}."
        )
    return number


def encode_key(key: int) -> str:
    """``1`` → ``"AAAAAAAAAAAAAAAAAAAAAAAAAB"``: a deal key's 26 characters (C2b)."""
    _check_key(key)
    return _encode(key, KEY_DIGITS)


def decode_key(text: str) -> int:
    """A deal key's 26 characters → its 128-bit number; case-insensitive (C2b)."""
    text = text.upper()
    if len(text) != KEY_DIGITS:
        raise MalformedError(
            "bad_code",
            f"The deal key {text!r} must be {KEY_DIGITS} characters long, not {len(text)}.",
        )
    key = _decode(text)
    if key > MAX_KEY:
        raise MalformedError(
            "bad_code",
            f"A deal key is below 2^128, so its first character is one of {_KEY_FIRST}, "
            f"not {text[0]!r}.",
        )
    if key < MIN_KEY:
        raise MalformedError("bad_code", "A deal key cannot be 0 (all A's); keys run from 1.")
    return key


class Variant(NamedTuple):
    """A known variant: its game (name + rules version) and its letter."""

    game: str
    letter: str

    @property
    def id(self) -> str:
        """The canonical variant name, ``"SH1-C4"``: what the service stores and ranks."""
        return f"{self.game}-{self.letter}"


def parse_variant(text: object) -> Variant:
    """``"sh1-c4"`` → ``Variant("SH1", "C4")`` (``.id``: ``"SH1-C4"``).
    Raises :class:`MalformedError`."""
    if not isinstance(text, str):
        raise MalformedError("bad_variant", "A variant is a string such as 'EH1-N' or 'SH1-C4'.")
    parts = text.strip().upper().split("-")
    if len(parts) != 2:
        raise MalformedError(
            "bad_variant", f"{text!r} is not a variant; known variants: {_variant_ids()}."
        )
    game, variant = parts
    _check_game_variant(game, variant)
    return Variant(game, variant)


def _check_game_variant(game: str, variant: str) -> None:
    if game not in _VARIANTS:
        raise MalformedError(
            "bad_code", f"Unknown game {game!r}; known games: {', '.join(_VARIANTS)}."
        )
    if variant not in _VARIANTS[game]:
        raise MalformedError(
            "bad_code",
            f"{game} has no variant {variant!r}; its variants: {', '.join(_VARIANTS[game])}.",
        )


@dataclass(frozen=True, slots=True)
class GameCode:
    """A parsed, valid game code. ``str(code)`` is its canonical text.

    ``number`` is the deal number (1..999 999), or for a long code
    (``long=True``, C2b) the 128-bit deal key.
    """

    game: str
    variant: str
    number: int
    long: bool = False

    def __post_init__(self) -> None:
        _check_game_variant(self.game, self.variant)
        if not isinstance(self.long, bool):
            raise MalformedError("bad_code", f"long is True or False, not {self.long!r}.")
        if self.long:
            _check_key(self.number)
        else:
            _check_number(self.number)

    @classmethod
    def parse(cls, text: object) -> GameCode:
        """Parse a code with either deal length, ignoring case and surrounding spaces (C2, C2b)."""
        if not isinstance(text, str):
            raise MalformedError("bad_code", "A game code is a string such as 'SH1-C4-AAAAAJ2'.")
        parts = text.strip().upper().split("-")
        if len(parts) != 3 or not all(parts):
            raise MalformedError(
                "bad_code",
                f"{text!r} is not a game code: write GAME-VARIANT-DEAL, like 'SH1-C4-AAAAAJ2'.",
            )
        game, variant, deal = parts
        _check_game_variant(game, variant)
        if len(deal) == DEAL_DIGITS:
            return cls(game, variant, decode_deal(deal))
        if len(deal) == KEY_DIGITS:
            return cls(game, variant, decode_key(deal), long=True)
        raise MalformedError(
            "bad_code",
            f"The deal part {deal!r} must be {DEAL_DIGITS} characters (a numbered deal) or "
            f"{KEY_DIGITS} characters (a deal key) long, not {len(deal)}.",
        )

    @property
    def variant_id(self) -> str:
        """``"SH1-C4"``."""
        return Variant(self.game, self.variant).id

    @property
    def deal(self) -> str:
        """The deal part: seven characters, or 26 for a long code."""
        return _encode(self.number, KEY_DIGITS if self.long else DEAL_DIGITS)

    def same_cards(self) -> tuple[GameCode, ...]:
        """This deal in every variant of its game, itself included, in the declared order.

        The variant is not part of the shuffle (C1, C2b), so ``SH1-C4-X``,
        ``SH1-C2-X`` and ``SH1-C1-X`` are the same cards with fewer cells.
        """
        return tuple(
            GameCode(self.game, variant, self.number, self.long) for variant in _VARIANTS[self.game]
        )

    def __str__(self) -> str:
        return f"{self.game}-{self.variant}-{self.deal}"
