"""A test-only ASGI app for ``test_sentry.py``: the service with the URLs of
``failing_urls.py`` (one more view, with a bug). Only daphne imports it:
importing it switches the process's URLs.

    daphne tests.system.ops.failing_app:application
"""

from django.conf import settings

from config.asgi import application  # sets Django up

settings.ROOT_URLCONF = "tests.system.ops.failing_urls"

__all__ = ["application"]
