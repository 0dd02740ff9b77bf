"""``makemessages`` that also finds the engine's plural refusal sentences.

The engine marks a sentence with a singular and a plural with its own
``ngettext_noop(one, other, count=…)`` (``games/engine/sentences.py``: no
Django there), a name xgettext knows only when told; Django's command takes no
keyword option, so this one adds it (as Django's documentation suggests).
"""

from __future__ import annotations

from django.core.management.commands import makemessages


class Command(makemessages.Command):
    xgettext_options = [*makemessages.Command.xgettext_options, "--keyword=ngettext_noop:1,2"]
