"""Find a game by its code prefix, start one, load one, replay one."""

from __future__ import annotations

from collections.abc import Iterable

from .actions import Action
from .base import Game
from .codes import GameCode
from .easy_harp import EasyHarp
from .errors import EngineError
from .seahaven import Seahaven
from .snapshot import saved_code

GAMES: dict[str, type[Game]] = {EasyHarp.game: EasyHarp, Seahaven.game: Seahaven}


def game_class(code: GameCode | str) -> type[Game]:
    if not isinstance(code, GameCode):
        code = GameCode.parse(code)
    return GAMES[code.game]


def new_game(code: GameCode | str) -> Game:
    """The starting position of the deal ``code`` (``"SH1-C4-AAAAAJ2"``)."""
    if not isinstance(code, GameCode):
        code = GameCode.parse(code)
    return GAMES[code.game](code)


def load_game(data: object) -> Game:
    """Rebuild any game from :meth:`Game.to_json` output: ``Game.from_json`` of
    the class its code names."""
    return game_class(saved_code(data)).from_json(data)


def replay(code: GameCode | str, actions: Iterable[Action | dict[str, object]]) -> Game:
    """Play ``actions`` (objects or their JSON) from the deal; raise at the first refusal.

    The error raised is the engine's own, with ``index`` set to the position of
    the refused action.
    """
    game = new_game(code)
    for index, item in enumerate(actions):
        try:
            game.apply(game.parse_action(item) if isinstance(item, dict) else item)
        except EngineError as exc:
            exc.index = index
            raise
    return game
