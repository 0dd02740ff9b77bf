from typing import Any

from django.apps import AppConfig


def _export_races(sender: type, *, user: Any, **kwargs: Any) -> dict[str, Any]:
    """A player takes their data (issue 28): the rooms they raced in."""
    from .selectors import races_export

    return races_export(user=user)


class RacesConfig(AppConfig):
    name = "races"

    def ready(self) -> None:
        from accounts.privacy import export_requested

        # The racers' progress, from the games' sealed attempts (games/signals.py).
        from . import progress  # noqa: F401

        export_requested.connect(_export_races, dispatch_uid="races.export")
