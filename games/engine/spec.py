"""What a game declares once (issue 16): :class:`GameSpec` and its :class:`VariantSpec`.

Each game module ends with its declaration (``easy_harp.EASY_HARP``,
``seahaven.SEAHAVEN``): the code prefix, the engine class, the solver, and per
variant its id, display names, the daily preparation effort and the piles the
client lays out. ``registry.py`` lists the declarations; everything else — the
codes, the daily job, the pages and the client's catalogue — reads them there.

Display names and refusal sentences are English source strings marked with
``gettext_noop`` (``sentences.py``), so ``make messages`` puts them in the
``django`` catalog; the web layer translates them and ships them to the client
(``frontend/catalogue.py``). The engine itself never translates.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import Any

from .base import Game
from .codes import GameCode, Variant
from .sentences import COMMON_REASONS, Sentence
from .solver import Budget, Solution


@dataclass(frozen=True)
class Effort:
    """How hard the daily preparation job tries for one day and variant."""

    nodes: int
    """Positions one candidate's search may expand."""
    candidates: int
    """Candidates tried before settling for the best unknown."""
    seconds: float
    """A safety stop for the whole variant should the solver be far slower than
    measured (``bench/solver.py``); the node budgets, not this, decide normally."""


@dataclass(frozen=True)
class Layout:
    """The client's layout hints: the pile ids of the top row's left group
    (stock and waste, or the cells), its right group (the foundations), and the
    columns, left to right; and the suit each foundation spot takes (C7), which
    the client shows on an empty spot. Read from the engine, never re-derived."""

    top_left: tuple[str, ...]
    top_right: tuple[str, ...]
    columns: tuple[str, ...]
    suits: dict[str, str]
    """Foundation spot → its suit letter: ``{"f1": "S", "f2": "H", …}``."""

    def to_json(self) -> dict[str, Any]:
        return {
            "top_left": list(self.top_left),
            "top_right": list(self.top_right),
            "columns": list(self.columns),
            "suits": dict(self.suits),
        }


@dataclass(frozen=True)
class NeverLooked:
    """Fair play (``games/fairplay.py``) in a game that hides cards: a clean win
    (no undo, no take-back) with at most ``max_passes`` turns of the waste and at
    least ``min_progress`` of its card moves making progress (to a foundation, or
    turning a card up) is play that never needed to look at a card."""

    max_passes: int
    min_progress: float


@dataclass(frozen=True)
class VariantSpec:
    """One variant of a game: ``letter`` is the code's middle part (``"C4"``)."""

    letter: str
    name: str
    """Its display name, e.g. ``"Seahaven Towers · Easy (4 cells)"``: the game,
    then after ``" · "`` the level the lobby shows small."""
    tab: str
    """The short name of a leaderboard tab, e.g. ``"Seahaven · 4 cells"``."""
    choice: str
    """Its chip in the New game window (``"4 · Easy"``); empty for a game's only variant."""
    effort: Effort
    cells: int = 0
    """How many cells the variant has (RULES.md B, "Number of cells")."""
    levels: tuple[float, float, float, float] | None = None
    """The difficulty scores at which predicted levels 2, 3, 4 and 5 begin
    (``difficulty.py``), found by ``bench/difficulty.py`` on the variant's own
    candidate deals — about a fifth of its days at each level. None: not
    calibrated yet; its predictions use generic cuts and say so
    (``calibrated`` false), and the day's page says the level is a first guess."""


@dataclass(frozen=True)
class GameSpec:
    """Everything the project knows about one game, declared beside its engine."""

    prefix: str
    """The code prefix: game name and rules version, e.g. ``"EH1"`` (RULES.md C2)."""
    title: str
    """The game's display name (English source string)."""
    engine: type[Game]
    solver: Callable[[Game, Budget], Solution]
    """Searches a position for a win (``games.engine.solver``)."""
    variants: tuple[VariantSpec, ...]
    """In the order the service lists them (lobby, leaderboards, ``ALL_VARIANTS``)."""
    icon: str
    """The suits the lobby shows beside the game's name."""
    never_looked: NeverLooked | None = None
    """When a clean win is flagged for review; None: never (a game that shows
    every card has nothing to look at)."""

    def __post_init__(self) -> None:
        if self.engine.game != self.prefix:
            raise ValueError(f"{self.engine.__name__} plays {self.engine.game}, not {self.prefix}")

    def variant_id(self, variant: VariantSpec) -> str:
        """``"SH1-C4"``."""
        return Variant(self.prefix, variant.letter).id

    def variant(self, letter: str) -> VariantSpec:
        return next(v for v in self.variants if v.letter == letter)

    @cached_property
    def layouts(self) -> dict[str, Layout]:
        """Each variant's layout hints, by letter, read from the engine's own piles
        (a deal of each variant), so the piles are declared once, by the engine."""
        layouts = {}
        for variant in self.variants:
            game = self.engine(GameCode(self.prefix, variant.letter, 1))
            layouts[variant.letter] = Layout(
                top_left=game.extra_piles() + game.cells,
                top_right=game.foundations,
                columns=game.columns,
                suits={spot: suit.name for spot, suit in game.spot_suit.items()},
            )
        return layouts

    @cached_property
    def refusals(self) -> dict[str, Sentence]:
        """Every refusal sentence of the game by reason code (C12): the shared
        ones with the game's own in their place (``Game.reasons``), as the engine
        says them — the client says them in the player's language from these."""
        return {**COMMON_REASONS, **self.engine.reasons}
