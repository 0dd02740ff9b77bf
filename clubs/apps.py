from typing import Any

from django.apps import AppConfig


def _export_clubs(sender: type, *, user: Any, **kwargs: Any) -> dict[str, Any]:
    """A player takes their data (issue 28): their clubs and whom they follow."""
    from .selectors import player_export

    return player_export(user=user)


def _forget_account(sender: type, *, user: Any, **kwargs: Any) -> None:
    """A deleted account leaves its clubs (an owned one is handed over or goes)
    and its follows, both ways."""
    from .services import account_forget

    account_forget(user=user)


class ClubsConfig(AppConfig):
    name = "clubs"

    def ready(self) -> None:
        from accounts.privacy import account_deleted, export_requested

        export_requested.connect(_export_clubs, dispatch_uid="clubs.export")
        account_deleted.connect(_forget_account, dispatch_uid="clubs.forget")
