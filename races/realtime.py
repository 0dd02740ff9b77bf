"""What the room's sockets are sent (``/ws/races/{race}/``; protocol:
``games/websocket.md``), after commit, on a best-effort basis: a lost event
costs a client a refetch of the race, never a wrong standing.

A ``race`` frame differs between sockets only by its ``you``: the race is
encoded once and each socket adds its own (``races.consumers``). ``progress``
frames are the same for everyone and relayed as they are.

A socket's first frame comes from the race kept per room version
(``race_event_kept``): a crowd of spectators opening at once costs one small
read each and one build of the race between them (issue 38). While a race runs
its racers' progress moves without a room change: a kept view serves only
until the room's next ``progress`` frame (its mark in the cache, ``SENT_KEY``),
so a socket that opens after a racer's last move still shows that move."""

from __future__ import annotations

import datetime as dt
import logging
import threading
import time
from dataclasses import dataclass
from typing import Any

from django.core.cache import cache

from kit.broadcast import group_event
from kit.sockets import encode

from .models import Race
from .selectors import PROGRESS_KEEP_S, SENT_KEY, race_get, race_version, race_view

log = logging.getLogger(__name__)


def race_group(slug: str) -> str:
    return f"race.{slug}"


KEEP_ROOMS = 500
"""Rooms kept at most in this process; beyond, the least lately built are forgotten."""


@dataclass(frozen=True)
class _Kept:
    event: dict[str, Any]
    at: float  # time.monotonic() of the build
    running: bool
    sent: str | None  # the room's progress mark read before the build

    def serves(self, version: int, sent: str | None) -> bool:
        return self.event["v"] >= version and (not self.running or self.sent == sent)


_KEPT: dict[str, _Kept] = {}  # slug -> the room's latest build in this process
_BUILDING: dict[str, threading.Lock] = {}  # slug -> held while one is built
_LOCK = threading.Lock()


def sent_mark() -> str:
    """A new value of a room's mark (``SENT_KEY``), unlike any before it."""
    return f"{time.time_ns()}"


def progress_sent(slug: str) -> None:
    """Mark the room's view as moved on: a ``progress`` frame is being sent
    (``races.progress``, which also sets it in its own round trip)."""
    cache.set(SENT_KEY.format(slug), sent_mark(), timeout=PROGRESS_KEEP_S)


def _sent_mark(slug: str) -> str | None:
    try:
        mark: str | None = cache.get(SENT_KEY.format(slug))
    except Exception:  # the cache away: a mark no other read equals, so a running
        return f"?{time.monotonic_ns()}"  # race's kept view is never served
    return mark


def race_event(slug: str) -> dict[str, Any]:
    """The channel-layer event of the race as it is now: its JSON encoded once,
    without ``you`` (``race``), and what each socket's ``you`` is made of. Kept
    for the room's sockets opening next (``race_event_kept``)."""
    sent = _sent_mark(slug)  # before the build: a frame after it makes it old
    view = race_view(race_get(slug=slug))
    event = {
        "type": "race.changed",
        "race": encode(view.race),
        "v": view.race["version"],
        "host": view.host_id,
        "attempts": {str(player): attempt for player, attempt in view.attempts.items()},
    }
    running = view.race["status"] == Race.Status.RUNNING
    kept = _Kept(event, time.monotonic(), running, sent)
    with _LOCK:
        old = _KEPT.get(slug)
        if old is None or old.event["v"] <= kept.event["v"]:  # never back to an older one
            _KEPT[slug] = kept
        if len(_KEPT) > KEEP_ROOMS:
            for gone in sorted(_KEPT, key=lambda s: _KEPT[s].at)[: len(_KEPT) - KEEP_ROOMS]:
                del _KEPT[gone]
                _BUILDING.pop(gone, None)
    return event


def race_event_kept(slug: str) -> dict[str, Any]:
    """``race_event`` for a socket opening (already in the room's group, so no
    frame sent after this read is missed): the one kept when it is of the room's
    version (a running race's, built after the room's last ``progress`` frame),
    else built — once for all the openings waiting for it."""
    version = race_version(slug=slug)
    kept = _KEPT.get(slug)
    sent = _sent_mark(slug) if kept is not None and kept.running else None
    if kept is not None and kept.serves(version, sent):
        return kept.event
    with _LOCK:
        building = _BUILDING.setdefault(slug, threading.Lock())
    with building:  # the others wait for this one's build, then take it
        kept = _KEPT.get(slug)
        if kept is not None and kept.serves(version, _sent_mark(slug) if kept.running else None):
            return kept.event
        return race_event(slug)


def race_changed(slug: str) -> None:
    """After commit: the room changed (a join, a leave, the start, a finish, the
    end): every socket of it gets the race."""
    try:
        event = race_event(slug)
    except Exception:
        log.warning("race %s: its change not sent", slug, exc_info=True)
        return
    group_event(race_group(slug), event)


def race_started(slug: str, starts_at: dt.datetime) -> None:
    """After commit of the start: each racer's socket gets its own game's id."""
    try:
        view = race_view(race_get(slug=slug))
    except Exception:
        log.warning("race %s: its start not sent", slug, exc_info=True)
        return
    group_event(
        race_group(slug),
        {
            "type": "race.start",
            "starts_at": starts_at.isoformat().replace("+00:00", "Z"),
            "attempts": {str(player): attempt for player, attempt in view.attempts.items()},
        },
    )
