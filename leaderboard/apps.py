from typing import Any

from django.apps import AppConfig


def _export_rating(sender: type, *, user: Any, **kwargs: Any) -> dict[str, Any]:
    """A player takes their data (issue 28): their race rating and its changes."""
    from .ratings import rating_export

    return rating_export(user=user)


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        from accounts.privacy import export_requested

        # The receivers: the live board's of the games' results (games/signals.py),
        # the race rating job's of the races' ends (races/signals.py).
        from . import realtime, tasks  # noqa: F401

        export_requested.connect(_export_rating, dispatch_uid="leaderboard.export")
