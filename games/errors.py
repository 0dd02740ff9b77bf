"""Where the games meet the kit's vocabulary of refusals (``kit/errors.py``).

The games' services and selectors raise the kit's kinds themselves. The engine
is pure Python and cannot know them: its two errors (RULES.md C12, C20) are
said as kinds here, for every door — an input that is no action, state or
code at all is ``Invalid`` (400); a well-formed action the rules refuse here
is ``Illegal`` (422) with the ``params`` a client says it in the player's
language with (issue 6). Imported when the app is ready (``games/apps.py``)."""

from __future__ import annotations

from kit.errors import Illegal, Invalid, describe_as

from .engine import IllegalActionError, MalformedError

describe_as(MalformedError, Invalid)
describe_as(IllegalActionError, Illegal, "params")
