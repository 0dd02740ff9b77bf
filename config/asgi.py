"""The ASGI application daphne serves: HTTP now; WebSockets join it in the realtime issue."""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

application = get_asgi_application()
