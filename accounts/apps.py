from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"

    def ready(self) -> None:
        from . import backends  # noqa: F401  (its receivers: a changed user is read again)
