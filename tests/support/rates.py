"""Rate limits counted from the caller's side, in process: the limit itself
(``kit.api.rate_limit``) asked again and again, as the requests of a test and of
the processes it starts (``python -c``) would."""

from __future__ import annotations

from kit.api import RateLimited, rate_limit


def let_through(scope: str, ident: str, times: int) -> int:
    """How many of ``times`` requests ``rate_limit`` let through."""
    passed = 0
    for _ in range(times):
        try:
            rate_limit(scope, ident)
            passed += 1
        except RateLimited:
            pass
    return passed
