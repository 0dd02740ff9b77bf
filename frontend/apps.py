from django.apps import AppConfig


class FrontendConfig(AppConfig):
    """The web client: page shells, ES modules and CSS served as static files."""

    name = "frontend"
