"""Link previews of a day's page (issue 28): the OpenGraph and Twitter cards a
shared result shows (the share text links to ``/daily/<date>/``, finish.js),
and the card's image, drawn with Pillow.

Fair daily deals (PRODUCT.md): while a day runs, nothing of its deals may leak.
So the card and its image are made from **public figures only** —
``day_figures``: the day, each variant's name, its *predicted* level (published
from the start, counts only) and how many results count and how many won (the
live leaderboard shows each of them). Neither the card nor the drawing ever
sees a ``Deal``, a code, a card or the solver's line: they take the figures,
and ``tests/system/hostile/test_fair_cards.py`` checks that another deal on the
same day draws the same bytes."""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import json
from pathlib import Path
from typing import Any

from django.core.cache import cache
from django.utils.formats import date_format
from django.utils.translation import get_language, gettext, gettext_lazy, ngettext

from games.engine import ALL_VARIANTS
from games.models import DailyDeal
from games.ranking import counted
from leaderboard.selectors import result_shown

from .catalogue import games_catalogue, games_named

WIDTH, HEIGHT = 1200, 630  # the size every preview (OpenGraph, Twitter) takes
HEADER = "#17202e"  # theme.css --header, as the app's icons
INK, MUTED = "#ffffff", "#c9d2e3"
MARK = Path(__file__).resolve().parent / "static" / "frontend" / "icons" / "maskable-512.png"
FONTS = Path("/usr/share/fonts/truetype/dejavu")
KEPT = 24 * 3600  # an image's bytes, cached; its figures are in the key


def day_figures(day: dt.date) -> list[dict[str, Any]]:
    """Each variant of ``day``'s dailies in the service's order: its id and name,
    its predicted level's name (``None`` if unknown) and its counted results and
    wins — what the day's page and its live leaderboard already publish."""
    names = {v["id"]: v["name"] for game in games_catalogue() for v in game["variants"]}
    dailies = {
        d.variant: d for d in DailyDeal.objects.filter(date=day).only("variant", "predicted")
    }
    figures = []
    for variant in ALL_VARIANTS:
        daily = dailies.get(variant)
        if daily is None:
            continue
        results = counted(daily=daily)
        level = (daily.predicted or {}).get("name")
        figures.append(
            {
                "variant": variant,
                "name": names.get(variant, variant),
                "level": level if level and level != "unknown" else None,
                "players": results.count(),
                "won": results.filter(won=True).count(),
            }
        )
    return figures


# The level names, in the words the day's page uses (difficulty.js levelName).
LEVEL_NAMES = {
    "easy": gettext_lazy("Easy"),
    "moderate": gettext_lazy("Moderate"),
    "hard": gettext_lazy("Hard"),
    "tough": gettext_lazy("Tough"),
    "fiendish": gettext_lazy("Fiendish"),
}


def _level(name: str | None) -> str:
    return str(LEVEL_NAMES.get(name or "", gettext_lazy("Unknown")))


def figure_line(figure: dict[str, Any]) -> str:
    """``Seahaven Towers, 4 cells: moderate · 6 played, 5 won``."""
    played = (
        ngettext(
            "%(players)d played, %(won)d won", "%(players)d played, %(won)d won", figure["players"]
        )
        % figure
    )
    return f"{figure['name']}: {_level(figure['level'])} · {played}"


def day_card(day: dt.date) -> dict[str, str]:
    """The card's title and description of ``day``'s page."""
    figures = day_figures(day)
    title = gettext("Daily deals of %(date)s") % {"date": day.isoformat()}
    description = " — ".join(figure_line(f) for f in figures) or gettext(
        "The daily deals of %(games)s, against everyone."
    ) % {"games": games_named()}
    return {"title": title, "description": description}


def _font(size: int, *, bold: bool = False) -> Any:
    from PIL import ImageFont

    path = FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")
    if path.exists():
        return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size=size)  # Pillow's own, where DejaVu is not installed


def draw_day(day: dt.date, figures: list[dict[str, Any]]) -> bytes:
    """The card's image: the day and one line per variant, from ``figures`` alone."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT), HEADER)
    pen = ImageDraw.Draw(image)
    # The app's icon, not glyphs: Pillow's own font (used where DejaVu is missing) has no suits.
    with Image.open(MARK) as mark:
        image.paste(mark.convert("RGB").resize((96, 96)), (64, 48))
    pen.text((184, 66), gettext("Patience Daily"), font=_font(56, bold=True), fill=INK)
    pen.text((72, 170), day.isoformat(), font=_font(48, bold=True), fill=INK)
    y = 260
    for figure in figures[:5]:
        pen.text((72, y), figure_line(figure), font=_font(34), fill=MUTED)
        y += 62
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def day_image(day: dt.date) -> bytes:
    """``draw_day`` of the day's current figures, cached while they stay."""
    figures = day_figures(day)
    key = hashlib.sha256(json.dumps([day.isoformat(), get_language(), figures]).encode())
    name = f"og-day:{key.hexdigest()[:32]}"
    found: bytes | None = cache.get(name)
    if found is None:
        found = draw_day(day, figures)
        cache.set(name, found, KEPT)
    return found


# --- a player's result, shared (issue 28): ``/r/<game id>/`` and its image ----------------
#
# The same rule as the day's card: only what the public leaderboard already
# shows of that result (``leaderboard.selectors.result_shown``: player, won,
# score, time, moves, rank of how many, pending) and the day's public figures
# (its predicted level). Never the deal, its code, a card or a move: the
# figures are all the card and the drawing see.


def result_figures(attempt_id: int) -> dict[str, Any] | None:
    """The public figures of the result ``attempt_id``, or None when no board
    shows it (then its page and image are 404)."""
    shown = result_shown(attempt_id=attempt_id)
    if shown is None:
        return None
    attempt, count = shown
    daily = attempt.daily
    assert daily is not None  # result_shown: a ranked daily's result
    names = {v["id"]: v["name"] for game in games_catalogue() for v in game["variants"]}
    level = (daily.predicted or {}).get("name")  # published from the start (day_figures)
    return {
        "attempt": attempt.pk,
        "player": attempt.player.get_username(),
        "date": daily.date.isoformat(),
        "variant": daily.variant,
        "name": names.get(daily.variant, daily.variant),
        "level": level if level and level != "unknown" else None,
        "won": attempt.won,
        "score": attempt.score,
        "ms": attempt.elapsed_ms,
        "moves": attempt.moves,
        "rank": attempt.rank,  # type: ignore[attr-defined]
        "count": count,
        "pending": attempt.verified is None,
    }


def _clock(ms: int) -> str:
    """``3:12`` or ``1:02:03``, as the client's formatMs."""
    seconds = max(0, ms) // 1000
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{seconds:02d}" if hours else f"{minutes}:{seconds:02d}"


def _day_text(date: str) -> str:
    return date_format(dt.date.fromisoformat(date), "F j, Y")


def result_title(figures: dict[str, Any]) -> str:
    """``alice on Seahaven Towers · Easy (4 cells) — December 4, 2026``."""
    return gettext("%(player)s on %(variant)s — %(date)s") % {
        "player": figures["player"],
        "variant": figures["name"],
        "date": _day_text(figures["date"]),
    }


def result_line(figures: dict[str, Any]) -> str:
    """``Won · score 1220 · 98 moves · 3:12 · #2 of 5 · difficulty: Moderate``:
    what the board's row says, and the day's level."""
    parts = [
        gettext("Won") if figures["won"] else gettext("Not won"),
        gettext("score %(score)d") % figures,
        ngettext("%(moves)d move", "%(moves)d moves", figures["moves"]) % figures,
        _clock(figures["ms"]),
        gettext("#%(rank)d of %(count)d") % figures,
        gettext("difficulty: %(level)s") % {"level": _level(figures["level"])},
    ]
    if figures["pending"]:
        parts.append(gettext("check pending"))
    return " · ".join(parts)


def result_card(figures: dict[str, Any]) -> dict[str, str]:
    """The card's title and description of a result's page."""
    return {"title": result_title(figures), "description": result_line(figures)}


def result_lines(figures: dict[str, Any]) -> list[str]:
    """Every text the result's image draws, in order (after the brand): the
    player, the variant, the day, the result line in two parts."""
    line = result_line(figures).split(" · ")
    return [
        figures["player"],
        figures["name"],
        _day_text(figures["date"]),
        " · ".join(line[:4]),
        " · ".join(line[4:]),
    ]


def draw_result(lines: list[str]) -> bytes:
    """The result card's image, in the day card's style, from ``lines`` alone."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT), HEADER)
    pen = ImageDraw.Draw(image)
    with Image.open(MARK) as mark:
        image.paste(mark.convert("RGB").resize((96, 96)), (64, 48))
    pen.text((184, 66), gettext("Patience Daily"), font=_font(56, bold=True), fill=INK)
    player, variant, day, result, rank = lines
    pen.text((72, 180), player[:40], font=_font(60, bold=True), fill=INK)
    pen.text((72, 270), variant, font=_font(38), fill=MUTED)
    pen.text((72, 325), day, font=_font(38), fill=MUTED)
    pen.text((72, 410), result, font=_font(42, bold=True), fill=INK)
    pen.text((72, 475), rank, font=_font(36), fill=MUTED)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def result_image(figures: dict[str, Any]) -> tuple[bytes, str]:
    """The result's PNG and its ETag (the hash of what it draws, in this
    language), the bytes cached while the figures stay."""
    lines = result_lines(figures)
    key = hashlib.sha256(json.dumps([get_language(), lines]).encode()).hexdigest()[:32]
    name = f"og-result:{key}"
    found: bytes | None = cache.get(name)
    if found is None:
        found = draw_result(lines)
        cache.set(name, found, KEPT)
    return found, f'"{key}"'
