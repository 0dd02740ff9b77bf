"""The Celery app: ``celery -A config worker`` and ``celery -A config beat``.

Its configuration is the ``CELERY_*`` settings (``config/settings.py``), the beat
schedule included; tasks live in each app's ``tasks.py``.
"""

import os

from celery import Celery

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

app = Celery("patience")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()
