from django.apps import AppConfig


class LeaderboardConfig(AppConfig):
    name = "leaderboard"

    def ready(self) -> None:
        # The live board's receiver of the games' results (games/signals.py).
        from . import realtime  # noqa: F401
