"""The games, from their declarations: find one by its code prefix, start one,
load one, replay one, solve one.

A game is registered by adding its declaration (``spec.py``) to the tuple
registered below; the rest of the project reads ``SPECS``, ``GAMES``,
``VARIANTS`` and ``ALL_VARIANTS`` from here. :func:`register` and
:func:`unregister` do the same at run time, for a test's own game (the toy
Baker's Game of ``tests/support/toy_bakers.py``): such a game plays, is listed
in the catalogue and takes practice deals, but ``ALL_VARIANTS`` — the variants
with a ranked daily, fixed when the service starts — stays as it was.
"""

from __future__ import annotations

from collections.abc import Iterable

from .actions import Action
from .base import Game
from .codes import GameCode, register_variants, unregister_variants
from .easy_harp import EASY_HARP
from .errors import EngineError
from .seahaven import SEAHAVEN
from .snapshot import saved_code
from .solver import Budget, Solution
from .spec import GameSpec, VariantSpec

SPECS: dict[str, GameSpec] = {}
"""Every game's declaration by code prefix, in the order the service lists them."""

GAMES: dict[str, type[Game]] = {}

VARIANTS: dict[str, tuple[GameSpec, VariantSpec]] = {}
"""Each variant id (``"SH1-C4"``) → its game's declaration and its own."""


def register(spec: GameSpec) -> None:
    """Make ``spec``'s game known: its codes, its engine, its variants."""
    if spec.prefix in SPECS:
        raise ValueError(f"{spec.prefix} is registered already")
    SPECS[spec.prefix] = spec
    GAMES[spec.prefix] = spec.engine
    VARIANTS.update((spec.variant_id(v), (spec, v)) for v in spec.variants)
    register_variants(spec.prefix, tuple(v.letter for v in spec.variants))


def unregister(prefix: str) -> None:
    """Forget a game :func:`register` made known (a test's, when it is done)."""
    spec = SPECS.pop(prefix)
    del GAMES[prefix]
    for variant in spec.variants:
        del VARIANTS[spec.variant_id(variant)]
    unregister_variants(prefix)


for _spec in (EASY_HARP, SEAHAVEN):
    register(_spec)

ALL_VARIANTS: tuple[str, ...] = tuple(VARIANTS)
"""``("EH1-N", "SH1-C4", "SH1-C2", "SH1-C1")``: the variant ids the service ranks."""


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


def solve(game: Game, *, nodes: int = 200_000, seconds: float | None = None) -> Solution:
    """Search ``game``'s current position for a win within the budget, with its
    game's solver (``games.engine.solver``: server only, it sees every card)."""
    return SPECS[game.code.game].solver(game, Budget(nodes=nodes, seconds=seconds))
