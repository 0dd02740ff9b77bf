from django.apps import AppConfig


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        # The jobs' receivers of the services' signals (games/signals.py).
        from . import tasks  # noqa: F401
