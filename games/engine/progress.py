"""A game's progress as a rival may see it (issue 29, race rooms): counts only,
never a card. ``home`` is the cards on each foundation spot, in the spots'
order; ``uncovered`` the face-down cards turned up so far (Easy Harp; a game
that deals every card face up has none); ``moves`` the move counter (RULES.md C5).

Computed from the game the server holds, so a racer's progress can only come
from checked actions; nothing here names a card, a pile's content or the stock."""

from __future__ import annotations

from typing import TypedDict

from .base import Game


class Progress(TypedDict):
    home: list[int]
    uncovered: int
    moves: int


_DEALT_DOWN: dict[tuple[type[Game], str], int] = {}


def _dealt_down(game: Game) -> int:
    """Face-down cards a fresh deal of ``game``'s kind has: the deal's shape is the
    game's, whatever the shuffle, so it is counted once per game and variant."""
    key = (type(game), game.code.variant_id)
    if key not in _DEALT_DOWN:
        _DEALT_DOWN[key] = sum(type(game)(game.code).down.values())
    return _DEALT_DOWN[key]


def progress(game: Game) -> Progress:
    """``game``'s progress: counts a rival may see (see the module's note)."""
    dealt = _dealt_down(game) if game.down else 0
    return {
        "home": [len(game.piles[spot]) for spot in game.foundations],
        "uncovered": max(0, dealt - sum(game.down.values())),
        "moves": game.moves,
    }
