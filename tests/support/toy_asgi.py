"""The service with the toy Baker's Game registered (``tests/support/toy_bakers.py``):
the application of the daphne ``tests/system/browser/test_toy_game.py`` starts for
itself, and of no other server."""

from games.engine import register
from tests.support.toy_bakers import BAKERS

register(BAKERS)

from config.asgi import application  # noqa: E402  (the game first, as a declaration would be)

__all__ = ["application"]
