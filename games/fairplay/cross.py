"""Across accounts (issue 25: the second-account cheat), pure: what one game
explored (``explore``), whether it was a scout, how much of a win's line a
scout's positions hold, and the reasons they give (``games.fairplay``)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.conf import settings

from games.engine import EngineError, Game, Move, new_game

from .lines import WEIGHTS, Played, _hidden, _look_undos, _standing, replayed


@dataclass(frozen=True)
class CrossThresholds:
    """What flags across accounts; the defaults and meanings are in config/settings.py."""

    scout_seen: float = 0.95
    scout_undos: int = 10
    scout_idle_min: int = 30
    scout_shared: float = 0.5
    known_par: float = 1.15
    known_undos: int = 10
    link_days: int = 7
    dormant_days: int = 2
    dormant_games: int = 2
    dormant_par: float = 1.1
    group_v4: int = 24
    group_v6: int = 64

    @classmethod
    def from_settings(cls) -> CrossThresholds:
        return cls(
            scout_seen=settings.FAIRPLAY_SCOUT_SEEN,
            scout_undos=settings.FAIRPLAY_SCOUT_UNDOS,
            scout_idle_min=settings.FAIRPLAY_SCOUT_IDLE_MIN,
            scout_shared=settings.FAIRPLAY_SCOUT_SHARED,
            known_par=settings.FAIRPLAY_KNOWN_PAR,
            known_undos=settings.FAIRPLAY_KNOWN_UNDOS,
            link_days=settings.FAIRPLAY_LINK_DAYS,
            dormant_days=settings.FAIRPLAY_DORMANT_DAYS,
            dormant_games=settings.FAIRPLAY_DORMANT_GAMES,
            dormant_par=settings.FAIRPLAY_DORMANT_PAR,
            group_v4=settings.FAIRPLAY_GROUP_V4,
            group_v6=settings.FAIRPLAY_GROUP_V6,
        )


# --- across accounts: pure functions over two action logs ------------------------------------

Layout = tuple[object, ...]


def _layout(game: Game) -> Layout:
    """Where every card lies and which are face down: a position, whatever the
    score, move count or undo history that led to it — and whichever column or
    foundation spot holds what (a king put in another empty column, an ace on
    the other spot of its suit, is the same position)."""
    columns = sorted((tuple(c.id for c in game.piles[p]), game.down[p]) for p in game.columns)
    foundations = sorted(tuple(c.id for c in game.piles[p]) for p in game.foundations)
    others = tuple(
        tuple(c.id for c in game.piles[p])
        for p in game.pile_ids
        if p not in game.down and p not in game.foundations
    )
    return tuple(columns), tuple(foundations), others


@dataclass(frozen=True)
class Exploration:
    """What one player's log uncovered of a deal (``explore``)."""

    hidden: int
    """Cards hidden at the deal (face down or in the stock)."""
    seen: int
    """Of those, how many the player saw face up at some moment, undone or not."""
    stock: int
    stock_seen: int
    undos: int
    look_undos: int
    """Of the undos, those that took back a look (``_look_undos``): exploration."""
    foundation: int
    """Cards on the foundations at the end: the result the exploration led to."""
    visited: frozenset[Layout]
    """Every position reached by moving a card, undone branches included."""
    line: tuple[Layout, ...]
    """The positions of the standing line (what stayed after the undos), card moves only."""
    seen_cards: frozenset[int] = frozenset()
    """The ids of the ``seen`` cards: what several games saw together is their union."""

    def numbers(self) -> dict[str, int]:
        return {
            "explored_hidden": self.hidden,
            "explored_seen": self.seen,
            "explored_stock": self.stock,
            "explored_stock_seen": self.stock_seen,
            "explored_foundation": self.foundation,
        }


def explore(code: str, actions: Sequence[dict[str, Any]]) -> Exploration | None:
    """Replay ``actions`` through the engine and record what the player saw and
    where they went (None: the engine refuses the log). Stock draws alone are
    not positions of the line: every player draws the same stock in the same
    order, so those positions say nothing about who knew what."""
    game = new_game(code)
    hidden = _hidden(game)
    stock = {c.id for c in game.piles.get("s", [])}
    visited: set[Layout] = set()
    layouts: dict[int, Layout] = {}  # by log index: the position after each card move
    played: list[Played] = []
    try:
        for step in replayed(game, actions):
            if step.step is not None and isinstance(step.step.action, Move):
                layouts[len(played)] = layout = _layout(game)
                visited.add(layout)
            played.append(step)
    except (EngineError, ValueError):
        return None
    seen = frozenset().union(*(p.shown for p in played))
    return Exploration(
        hidden=len(hidden),
        seen=len(seen),
        stock=len(stock),
        stock_seen=len(seen & stock),
        undos=sum(p.step is None for p in played),
        look_undos=_look_undos(played),
        foundation=sum(len(game.piles[f]) for f in game.foundations),
        visited=frozenset(visited),
        line=tuple(layouts[i] for i in _standing(played) if i in layouts),
        seen_cards=seen,
    )


def is_scout(found: Exploration, *, won: bool, thresholds: CrossThresholds) -> bool:
    """The scout pattern: not won, most hidden cards seen, with many undos: a look
    at the whole deal that the result does not account for. Every undo counts
    here, not only those taking back a look (``look_undos``): undone detours can
    only make a game look more like a scout's, never hide one, and a scout that
    draws the whole stock once and then uncovers the columns takes back few looks
    (the test scout, ``tests/support/fairplay.py``, 7 to 21 on 13 deals)."""
    return (
        not won
        and found.hidden > 0
        and found.seen >= thresholds.scout_seen * found.hidden
        and found.undos >= thresholds.scout_undos
    )


def line_shared(winner: Exploration, scout: Exploration) -> float:
    """The share of the winner's resolved line that runs through positions the
    scout reached. Two people playing apart part ways within a few moves (a
    position is every card's place); a line learned from the scout's
    exploration keeps meeting it."""
    if not winner.line:
        return 0.0
    return round(sum(layout in scout.visited for layout in winner.line) / len(winner.line), 3)


def cross_reasons(signals: dict[str, Any], thresholds: CrossThresholds) -> list[dict[str, str]]:
    """The cross-account reasons of ``signals`` (``cross_signals`` added to the
    log's), each ``{"code", "text"}``; empty when nothing stands out."""
    reasons: list[dict[str, str]] = []

    def flag(code: str, text: str) -> None:
        reasons.append({"code": code, "text": text})

    if signals.get("scout"):
        flag(
            "scout_pattern",
            f"{signals['status']} after seeing {signals['explored_seen']} of the "
            f"{signals['explored_hidden']} hidden cards ({signals['explored_stock_seen']} of "
            f"{signals['explored_stock']} stock cards) with {signals['undos']} undos "
            f"({signals.get('look_undos', 0)} taking back a look), "
            f"{signals['explored_foundation']} cards on the foundations at the end",
        )
    links = signals.get("links") or []
    linked = f"; linked: {', '.join(links)}" if links else ""
    won, moves, par = bool(signals.get("won")), signals.get("moves"), signals.get("par")
    standing = signals.get("standing_moves", moves)
    # A win that needed no looking: its standing line near par (undone detours
    # lengthen the move count, not the line) with few looks taken back.
    known = (
        won
        and par is not None
        and standing is not None
        and standing <= thresholds.known_par * par
        and signals.get("look_undos", 0) <= thresholds.known_undos
    )
    for scout in signals.get("scouts") or []:
        who = f"{scout['player']}'s game #{scout['attempt']}"
        if scout["shared"] >= thresholds.scout_shared:
            flag(
                "scout_line",
                f"{scout['shared']:.0%} of the winning line runs through positions {who} "
                f"explored before giving up (it saw {scout['seen']} hidden cards, "
                f"{scout['undos']} undos; flagged from {thresholds.scout_shared:.0%}){linked}",
            )
        elif known and (links or signals.get("dormant")):
            flag(
                "scout_then_win",
                f"won with a standing line of {standing} actions (par {par}) taking back "
                f"{signals.get('look_undos', 0)} looks ({signals['undos']} undos in all) after "
                f"{who} saw {scout['seen']} hidden cards with {scout['undos']} undos and gave up"
                f"{linked or '; a dormant account'}",
            )
    pooled = signals.get("pooled") or []
    hidden, together = signals.get("explored_hidden"), signals.get("pooled_seen") or 0
    if won and pooled and hidden and together >= thresholds.scout_seen * hidden:
        games = "; ".join(
            f"{p['player']}'s {'ranked' if p['ranked'] else 'practice'} game #{p['attempt']} "
            f"saw {p['seen']}"
            for p in pooled
        )
        flag(
            "pooled_scouts",
            f"before this win, the games of this daily from this browser or address group "
            f"saw {together} of the {hidden} hidden cards together (flagged from "
            f"{thresholds.scout_seen:.0%}): {games}",
        )
    devices = signals.get("device_accounts") or []
    if devices:
        flag(
            "shared_device",
            f"this browser (device id) also started ranked games of {', '.join(devices)} "
            f"within {thresholds.link_days} days",
        )
    if (
        won
        and signals.get("dormant")
        and signals.get("hidden_cards")
        and par is not None
        and moves is not None
        and moves <= thresholds.dormant_par * par
    ):
        flag(
            "dormant_strong_win",
            f"a win by an account made {signals['account_days']} days before with only "
            f"{signals['earlier_games']} earlier games: {moves} moves, par {par} (flagged "
            f"at or under {thresholds.dormant_par:g} x par)",
        )
    return reasons


def review_score(reasons: Sequence[dict[str, str]]) -> int:
    return sum(WEIGHTS.get(reason["code"], 1) for reason in reasons)
