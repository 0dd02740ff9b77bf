from django.apps import AppConfig


class RacesConfig(AppConfig):
    name = "races"

    def ready(self) -> None:
        # The racers' progress, from the games' sealed attempts (games/signals.py).
        from . import progress  # noqa: F401
