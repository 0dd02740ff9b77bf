"""The rules engine for Easy Harp and Seahaven Towers: pure Python, no Django.

    >>> from games.engine import new_game, Move
    >>> game = new_game("SH1-C4-AAAAAJ2")  # or a 26-character key (RULES.md C2b)
    >>> game.apply(Move("t1", "c3")); game.view()["piles"]["c3"]

Everything else in the project asks this package; nothing else knows a rule.
See ``base.py`` for the shared machinery, ``easy_harp.py``/``seahaven.py``
for where the two games differ and each game's declaration (``spec.py``), and
``registry.py`` for the list of games.
"""

from .actions import Action, DoubleTap, Move, Stock, Tap, Undo, parse_action
from .base import Game, LegalMoves
from .cards import CARDS, Card, Suit, parse_card
from .codes import (
    DEAL_DIGITS,
    KEY_DIGITS,
    MAX_DEAL,
    MAX_KEY,
    GameCode,
    Variant,
    decode_deal,
    decode_key,
    encode_deal,
    encode_key,
    parse_variant,
)
from .difficulty import Prediction, predict
from .easy_harp import EASY_HARP, EasyHarp
from .errors import EngineError, IllegalActionError, MalformedError
from .history import UNDO_LIMIT, Step
from .postmortem import PostMortem, last_winnable
from .progress import Progress, progress
from .registry import (
    ALL_VARIANTS,
    GAMES,
    SPECS,
    VARIANTS,
    game_class,
    load_game,
    new_game,
    register,
    replay,
    solve,
    unregister,
)
from .seahaven import SEAHAVEN, Seahaven
from .sentences import Plural, Sentence
from .spec import Effort, GameSpec, Layout, NeverLooked, VariantSpec

__all__ = [
    "ALL_VARIANTS",
    "CARDS",
    "DEAL_DIGITS",
    "EASY_HARP",
    "GAMES",
    "KEY_DIGITS",
    "MAX_DEAL",
    "MAX_KEY",
    "SEAHAVEN",
    "SPECS",
    "UNDO_LIMIT",
    "VARIANTS",
    "Action",
    "Card",
    "DoubleTap",
    "EasyHarp",
    "Effort",
    "EngineError",
    "Game",
    "GameCode",
    "GameSpec",
    "IllegalActionError",
    "Layout",
    "LegalMoves",
    "MalformedError",
    "Move",
    "NeverLooked",
    "Plural",
    "PostMortem",
    "Prediction",
    "Progress",
    "Seahaven",
    "Sentence",
    "Step",
    "Stock",
    "Suit",
    "Tap",
    "Undo",
    "Variant",
    "VariantSpec",
    "decode_deal",
    "decode_key",
    "encode_deal",
    "encode_key",
    "game_class",
    "last_winnable",
    "load_game",
    "new_game",
    "parse_action",
    "parse_card",
    "parse_variant",
    "predict",
    "progress",
    "register",
    "replay",
    "solve",
    "unregister",
]
