"""The predicted difficulty of a deal (issue 27, ``games/engine/difficulty.py``)
as it is published: the keys of its block, which the engine's tests and the
attacker's test of a running day both hold it to."""

from __future__ import annotations

PREDICTED_KEYS = {
    "level",
    "name",
    "nodes",
    "line",
    "bound",
    "first_moves",
    "winning_first",
    "probed_first",
    "playouts",
    "playout_wins",
    "playout_home",
    "score",
    "calibrated",
}
"""What a prediction publishes: counts and a level, nothing else (the attacker
test reads the running day's answers for exactly these)."""
