"""How a day's candidate deals are derived from the daily secret (RULES.md C2b,
PRODUCT.md "Fair daily deals"). Pure Python, no Django: the daily-deal job
(``games/dailies.py``) and the solver bench (``bench/solver.py``) share it.

Candidate ``i`` of ``date`` in ``variant`` is the long code whose 128-bit key is
the first 16 bytes (big-endian) of HMAC-SHA256(secret,
``"daily:{YYYY-MM-DD}:{variant}:{i}"``); a key of 0 (no key, C2b) is skipped.
Without the secret nobody can compute, enumerate or index them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import itertools
from collections.abc import Iterator

from games.engine import GameCode, parse_variant


def candidate_codes(*, secret: bytes, date: dt.date, variant: str) -> Iterator[GameCode]:
    """The deals ``date`` may play in ``variant``, in the order they are tried."""
    game, letter = parsed = parse_variant(variant)
    for index in itertools.count():
        message = f"daily:{date.isoformat()}:{parsed.id}:{index}".encode()
        key = int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest()[:16], "big")
        if key:
            yield GameCode(game, letter, key, long=True)
