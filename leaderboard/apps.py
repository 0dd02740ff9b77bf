from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        # The receivers: the live board's of the games' results (games/signals.py),
        # the race rating's of the races' ends (races/signals.py).
        from . import ratings, realtime  # noqa: F401
