"""The rules engine for Easy Harp and Seahaven Towers: pure Python, no Django.

    >>> from games.engine import new_game, Move
    >>> game = new_game("SH1-C4-AAAAAJ2")  # or a 26-character key (RULES.md C2b)
    >>> game.apply(Move("t1", "c3")); game.view()["piles"]["c3"]

Everything else in the project asks this package; nothing else knows a rule.
See ``base.py`` for the shared machinery and ``easy_harp.py``/``seahaven.py``
for where the two games differ.
"""

from .actions import Action, DoubleTap, Move, Stock, Tap, Undo, parse_action
from .base import Game, LegalMoves
from .cards import CARDS, Card, Suit, parse_card
from .codes import (
    ALL_VARIANTS,
    DEAL_DIGITS,
    KEY_DIGITS,
    MAX_DEAL,
    MAX_KEY,
    GameCode,
    decode_deal,
    decode_key,
    encode_deal,
    encode_key,
    parse_variant,
)
from .easy_harp import EasyHarp
from .errors import EngineError, IllegalActionError, MalformedError
from .history import UNDO_LIMIT, Step
from .registry import GAMES, game_class, load_game, new_game, replay
from .seahaven import Seahaven

__all__ = [
    "ALL_VARIANTS",
    "CARDS",
    "DEAL_DIGITS",
    "GAMES",
    "KEY_DIGITS",
    "MAX_DEAL",
    "MAX_KEY",
    "UNDO_LIMIT",
    "Action",
    "Card",
    "DoubleTap",
    "EasyHarp",
    "EngineError",
    "Game",
    "GameCode",
    "IllegalActionError",
    "LegalMoves",
    "MalformedError",
    "Move",
    "Seahaven",
    "Step",
    "Stock",
    "Suit",
    "Tap",
    "Undo",
    "decode_deal",
    "decode_key",
    "encode_deal",
    "encode_key",
    "game_class",
    "load_game",
    "new_game",
    "parse_action",
    "parse_card",
    "parse_variant",
    "replay",
]
