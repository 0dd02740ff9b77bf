"""Every message the race rooms' sockets are sent (``/ws/races/{race}/``;
protocol: ``games/websocket.md``), built here with the kit's one envelope
(``kit.sockets.frame``): the ``race`` (the room, encoded once per version, with
each socket's own ``you`` spliced in), the ``start`` and the ``progress``."""

from __future__ import annotations

import json
from typing import Any

from kit.sockets import frame, spliced


def race_frame(event: dict[str, Any], viewer_id: int | None) -> str:
    """The ``race`` frame of ``event`` (``race_event``) for the socket of ``viewer_id``."""
    attempts = event["attempts"]
    racer = viewer_id is not None and str(viewer_id) in attempts
    you = {
        "racer": racer,
        "host": viewer_id is not None and viewer_id == event["host"],
        "attempt": attempts[str(viewer_id)] if racer else None,
    }
    return frame("race", v=event["v"], texts={"race": spliced(event["race"], you=you)})


def start_frame(event: dict[str, Any], viewer_id: int | None) -> str:
    """The ``start`` frame: the instant every racer's clock starts, and to a
    racer their own game's id (to no one else)."""
    attempt = event["attempts"].get(str(viewer_id)) if viewer_id is not None else None
    return frame("start", starts_at=event["starts_at"], attempt=attempt)


def progress_frame(entries: list[str], version: int, places: dict[str, int]) -> str:
    """One ``progress`` frame of racers' entries (each ``{"v", "racer"}``): the
    racers who moved, and ``places``, every racer's place at the race's
    ``version`` (player → place, ``races.selectors.race_places``). Its ``v``: the
    newest of the two."""
    decoded = [json.loads(e) for e in entries]
    racers = [d["racer"] for d in decoded]
    v = max(version, *(d["v"] for d in decoded))
    return frame("progress", v=v, racers=racers, places=places)
