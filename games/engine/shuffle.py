"""The deterministic shuffle behind every deal (RULES.md C1, C2b).

A deal is a pure function of its code, the same on every machine and in every
version, forever, so it uses nothing whose sequence Python may change. The
variant is left out on purpose, so ``SH1-C4-X``, ``SH1-C2-X`` and ``SH1-C1-X``
shuffle the same cards: the same deal with fewer cells.

A stream of 64-bit words comes from the deal part of the code, in one of two
ways:

- **Numbered deals** (7 characters, C2):

  1. Seed: the first 8 bytes (big-endian) of SHA-256 of ``"{GAME}-{number}"``,
     the number in decimal, e.g. ``"SH1-314"``.
  2. Generator: SplitMix64 (Steele, Lea & Flood 2014) from that seed, written
     out below.

- **Long codes** (26-character keys, C2b):

  1. Message: ``"{GAME}-{KEY}"`` in ASCII, KEY being the 26 canonical
     (upper-case) characters, e.g. ``"SH1-AAAAAAAAAAAAAAAAAAAAAAAAAB"``. The
     key's 128 bits are all in it; a 64-bit seed would have dropped half.
  2. Stream: the SHAKE-256 output (FIPS 202, an extendable-output function) of
     that message, read as 64-bit big-endian words: bytes 0-7 are the first
     word, bytes 8-15 the second, and so on. SHAKE-256 rather than SHA-256 in
     counter mode because one call yields every word a deal needs.

Then, for both kinds:

3. ``below(n)``: a uniform integer in ``[0, n)`` by rejection: draw 64-bit
   words until one is under the largest multiple of ``n``, take it mod ``n``.
4. Fisher–Yates over the card ids in order ``0, 1, …, N-1`` (ids: see
   ``cards.py``; ace to king of spades, hearts, diamonds, clubs, then the
   second deck): for ``i`` from ``N-1`` down to ``1``, swap ``i`` with
   ``below(i + 1)``.

The games' ``deal`` methods say in which order the shuffled cards are dealt.
Test vectors in ``tests/games/engine/vectors/`` pin the result.
"""

from __future__ import annotations

import hashlib
import struct

from .codes import GameCode

_MASK = (1 << 64) - 1


class Words64:
    """A stream of 64-bit words, and uniform draws from it (step 3)."""

    def next(self) -> int:
        raise NotImplementedError

    def below(self, n: int) -> int:
        """A uniform integer in ``[0, n)``, without modulo bias."""
        limit = (1 << 64) - (1 << 64) % n
        while True:
            x = self.next()
            if x < limit:
                return x % n


class SplitMix64(Words64):
    """The SplitMix64 generator: 64-bit state, one addition and three mixes a draw."""

    def __init__(self, seed: int) -> None:
        self.state = seed & _MASK

    def next(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & _MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
        return z ^ (z >> 31)


class Shake256Words(Words64):
    """The SHAKE-256 output of ``message`` as 64-bit big-endian words, without end.

    ``ahead`` words are computed at once; should rejection sampling use them
    all (each draw is rejected with odds under 1 in 2^57), the output is asked for again
    at twice the length. SHAKE's shorter outputs are prefixes of its longer
    ones, so the stream goes on exactly as if it had been long enough.
    """

    def __init__(self, message: bytes, ahead: int = 128) -> None:
        self.message = message
        self.words: tuple[int, ...] = ()
        self.position = 0
        self._extend(ahead)

    def _extend(self, count: int) -> None:
        output = hashlib.shake_256(self.message).digest(8 * count)
        self.words = struct.unpack(f">{count}Q", output)

    def next(self) -> int:
        if self.position == len(self.words):
            self._extend(2 * len(self.words))
        word = self.words[self.position]
        self.position += 1
        return word


def deal_seed(code: GameCode) -> int:
    """The SplitMix64 seed of a numbered deal (step 1)."""
    if code.long:
        raise ValueError(f"{code} is a long code: its stream is key_stream(), not a seed.")
    digest = hashlib.sha256(f"{code.game}-{code.number}".encode("ascii")).digest()
    return int.from_bytes(digest[:8], "big")


def key_message(code: GameCode) -> bytes:
    """The SHAKE-256 input of a long code (step 1): ``b"SH1-" + the 26-character key``."""
    if not code.long:
        raise ValueError(f"{code} is a numbered deal: its stream is seeded by deal_seed().")
    return f"{code.game}-{code.deal}".encode("ascii")


def deal_stream(code: GameCode, n_cards: int) -> Words64:
    """The word stream of either kind of code, for a deal of ``n_cards`` cards."""
    if code.long:
        # N - 1 draws shuffle N cards; one word to spare makes a refill rarer still.
        return Shake256Words(key_message(code), ahead=n_cards)
    return SplitMix64(deal_seed(code))


def shuffled_ids(code: GameCode, n_cards: int) -> list[int]:
    """Card ids ``0..n_cards-1`` in the shuffled order of this deal."""
    rng = deal_stream(code, n_cards)
    ids = list(range(n_cards))
    for i in range(n_cards - 1, 0, -1):
        j = rng.below(i + 1)
        ids[i], ids[j] = ids[j], ids[i]
    return ids
