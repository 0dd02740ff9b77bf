#!/usr/bin/env python
"""Django's command-line utility."""

import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    from django.conf import settings
    from django.core.exceptions import ImproperlyConfigured
    from django.core.management import execute_from_command_line

    try:
        settings.INSTALLED_APPS  # noqa: B018  (reads the settings: the environment)
    except ImproperlyConfigured as advice:
        # A setting missing from the environment: say which, in one line, not in
        # a traceback through Django's command machinery.
        sys.exit(f"manage.py: {advice}")
    execute_from_command_line(sys.argv)
