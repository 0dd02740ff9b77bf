"""Game codes (RULES.md C2): ``GAME RULESVERSION - VARIANT - DEAL``.

``EH1-N-AAAAAAF`` is Easy Harp rules version 1, variant N, deal 5. DEAL is the
deal number (1..999 999) in base 32 over ``ABCDEFGHIJKLMNOPQRSTUVWXYZ234567``
(A = 0 … 7 = 31), seven characters, most significant first.
"""

from __future__ import annotations

from dataclasses import dataclass

from .errors import MalformedError

ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
DEAL_DIGITS = 7
MIN_DEAL = 1
MAX_DEAL = 999_999

VARIANTS: dict[str, tuple[str, ...]] = {"EH1": ("N",), "SH1": ("C4", "C2", "C1")}
"""Known games (name + rules version) and their variants."""

ALL_VARIANTS: tuple[str, ...] = tuple(f"{g}-{v}" for g, vs in VARIANTS.items() for v in vs)
"""``("EH1-N", "SH1-C4", "SH1-C2", "SH1-C1")``: the variant ids the service ranks."""


def encode_deal(number: int) -> str:
    """``5`` → ``"AAAAAAF"``."""
    if not MIN_DEAL <= number <= MAX_DEAL:
        raise MalformedError(
            "bad_code", f"Deal numbers run from {MIN_DEAL} to {MAX_DEAL:,}; {number} is outside."
        )
    chars = []
    for _ in range(DEAL_DIGITS):
        number, digit = divmod(number, 32)
        chars.append(ALPHABET[digit])
    return "".join(reversed(chars))


def decode_deal(text: str) -> int:
    """``"AAAAAJ2"`` → ``314``; case-insensitive."""
    text = text.upper()
    if len(text) != DEAL_DIGITS:
        raise MalformedError(
            "bad_code",
            f"The deal part {text!r} must be {DEAL_DIGITS} characters long, not {len(text)}.",
        )
    number = 0
    for ch in text:
        digit = ALPHABET.find(ch)
        if digit < 0:
            raise MalformedError(
                "bad_code", f"{ch!r} is not a deal digit; use the letters A-Z and the digits 2-7."
            )
        number = number * 32 + digit
    if not MIN_DEAL <= number <= MAX_DEAL:
        raise MalformedError(
            "bad_code", f"Deal numbers run from {MIN_DEAL} to {MAX_DEAL:,}; {text} is {number}."
        )
    return number


def parse_variant(text: object) -> tuple[str, str]:
    """``"sh1-c4"`` → ``("SH1", "C4")``. Raises :class:`MalformedError`."""
    if not isinstance(text, str):
        raise MalformedError("bad_variant", "A variant is a string such as 'EH1-N' or 'SH1-C4'.")
    parts = text.strip().upper().split("-")
    if len(parts) != 2:
        raise MalformedError(
            "bad_variant", f"{text!r} is not a variant; known variants: {', '.join(ALL_VARIANTS)}."
        )
    game, variant = parts
    _check_game_variant(game, variant)
    return game, variant


def _check_game_variant(game: str, variant: str) -> None:
    if game not in VARIANTS:
        raise MalformedError(
            "bad_code", f"Unknown game {game!r}; known games: {', '.join(VARIANTS)}."
        )
    if variant not in VARIANTS[game]:
        raise MalformedError(
            "bad_code",
            f"{game} has no variant {variant!r}; its variants: {', '.join(VARIANTS[game])}.",
        )


@dataclass(frozen=True, slots=True)
class GameCode:
    """A parsed, valid game code. ``str(code)`` is its canonical text."""

    game: str
    variant: str
    number: int

    def __post_init__(self) -> None:
        _check_game_variant(self.game, self.variant)
        encode_deal(self.number)  # validates the range

    @classmethod
    def parse(cls, text: object) -> GameCode:
        """Parse a code, ignoring case and surrounding spaces (C2)."""
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
        return cls(game, variant, decode_deal(deal))

    @property
    def variant_id(self) -> str:
        """``"SH1-C4"``."""
        return f"{self.game}-{self.variant}"

    @property
    def deal(self) -> str:
        """The seven-character deal part."""
        return encode_deal(self.number)

    def __str__(self) -> str:
        return f"{self.game}-{self.variant}-{self.deal}"
