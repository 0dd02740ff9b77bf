"""The deterministic shuffle behind every deal (RULES.md C1).

A deal is a pure function of its code, the same on every machine and in every
version, forever, so it uses nothing whose sequence Python may change:

1. Seed: the first 8 bytes (big-endian) of SHA-256 of ``"{GAME}-{number}"``,
   e.g. ``"SH1-314"``. The variant is left out on purpose, so ``SH1-C4-X``,
   ``SH1-C2-X`` and ``SH1-C1-X`` shuffle the same cards: the same deal with
   fewer cells.
2. Generator: SplitMix64 (Steele, Lea & Flood 2014), written out below.
3. ``below(n)``: a uniform integer in ``[0, n)`` by rejection: draw 64-bit
   values until one is under the largest multiple of ``n``, take it mod ``n``.
4. Fisher–Yates over the card ids in order ``0, 1, …, N-1`` (ids: see
   ``cards.py``; ace to king of spades, hearts, diamonds, clubs, then the
   second deck): for ``i`` from ``N-1`` down to ``1``, swap ``i`` with
   ``below(i + 1)``.

The games' ``deal`` methods say in which order the shuffled cards are dealt.
Test vectors in ``tests/engine/vectors/`` pin the result.
"""

from __future__ import annotations

import hashlib

from .codes import GameCode

_MASK = (1 << 64) - 1


class SplitMix64:
    """The SplitMix64 generator: 64-bit state, one addition and three mixes a draw."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, without modulo bias."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next()
            if x < limit:
                return x % n


def deal_seed(code: GameCode) -> int:
    digest = hashlib.sha256(f"{code.game}-{code.number}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")


def shuffled_ids(code: GameCode, n_cards: int) -> list[int]:
    """Card ids ``0..n_cards-1`` in the shuffled order of this deal."""
    rng = SplitMix64(deal_seed(code))
    ids = list(range(n_cards))
    for i in range(n_cards - 1, 0, -1):
        j = rng.below(i + 1)
        ids[i], ids[j] = ids[j], ids[i]
    return ids
