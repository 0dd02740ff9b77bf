"""The hidden-information checker (PRODUCT.md, anti-cheat): no face-down card,
no stock card and no order of either may show in anything a player receives.

A body is compared with the engine's full state of the game at that moment
(what the server stores). Easy Harp has every card twice, so a card name is a
leak only when every copy of it is hidden; the views are checked position by
position, and any run of two or more hidden cards in their order (or reversed)
is a leak wherever it shows. Shared by ``tests/games/test_api_anticheat.py`` (HTTP)
and ``tests/system/hostile/test_hidden_information.py`` (HTTP and websockets).

Also what the fair-daily attacks share: a daily prepared as the job prepares
it, its deal swapped for another, a page's link-preview cards, a bare PNG.
"""

from __future__ import annotations

import datetime as dt
import io
import json
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from django.core.cache import cache
from PIL import Image

from games.dailies import daily_deal_prepare, utc_today
from games.engine import Game, GameCode, load_game
from games.models import Attempt, DailyDeal

CARD = re.compile(r"(?<![A-Za-z0-9])[A2-9TJQK][SHDC](?![A-Za-z0-9])")
CARD_META = re.compile(r'<meta (?:property="og:[^"]+"|name="(?:twitter:[^"]+|description)") [^>]*>')


def engine_state(attempt_id: int) -> Game:
    return load_game(Attempt.objects.get(pk=attempt_id).state)


def hidden_positions(game: Game) -> dict[str, list[str]]:
    """The cards a player may not see, by pile, bottom to top."""
    hidden = {t: [c.text for c in game.piles[t][: game.down[t]]] for t in game.columns}
    if "s" in game.piles:
        hidden["s"] = [c.text for c in game.piles["s"]]
    return {pile: cards for pile, cards in hidden.items() if cards}


def hidden_only(game: Game) -> set[str]:
    """Card names whose every copy is hidden: naming one anywhere is a leak."""
    visible: set[str] = set()
    for pile, cards in game.piles.items():
        cut = len(cards) if pile == "s" else game.down.get(pile, 0)
        visible.update(c.text for c in cards[cut:])
    return {text for cards in hidden_positions(game).values() for text in cards} - visible


def code_secrets(code: str) -> list[str]:
    """Every way a daily's identity could be written down: the code, its
    26-character key (any case), the key's number in decimal and hex."""
    parsed = GameCode.parse(code)
    return [str(parsed), parsed.deal, parsed.deal.lower(), str(parsed.number), f"{parsed.number:x}"]


def walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for item in value.values():
            yield from walk(item)
    elif isinstance(value, list):
        for item in value:
            yield from walk(item)


def contains_run(values: list[Any], run: list[str]) -> bool:
    n = len(run)
    return any(values[i : i + n] == run for i in range(len(values) - n + 1))


def shown_in_order(game: Game) -> list[list[str]]:
    """The face-up cards of each pile as they lie, bottom to top."""
    shown = []
    for pile, cards in game.piles.items():
        cut = len(cards) if pile == "s" else game.down.get(pile, 0)
        shown.append([c.text for c in cards[cut:]])
    return shown


def hidden_runs(game: Game) -> list[list[str]]:
    """Each pile's hidden cards in their order (and reversed), where there are two
    or more — except a run that the face-up cards show anyway: with every card
    twice, a column's two face-down cards may well lie, by name, in the same
    order on the waste, and showing the waste is no leak."""
    runs = [cards for cards in hidden_positions(game).values() if len(cards) >= 2]
    runs += [run[::-1] for run in runs]
    shown = shown_in_order(game)
    return [run for run in runs if not any(contains_run(cards, run) for cards in shown)]


def check_hidden(body: Any, game: Game, where: str) -> None:
    """Nothing of ``body`` reveals a face-down or stock card of ``game``."""
    secret = hidden_only(game)
    runs = hidden_runs(game)
    for value in walk(body):
        if isinstance(value, str):
            leaked = set(CARD.findall(value)) & secret
            assert not leaked, f"{where}: hidden card(s) {leaked} named in {value!r}"
            for run in runs:
                for sep in (",", ", ", " ", "", "|"):
                    assert sep.join(run) not in value, f"{where}: hidden order in {value!r}"
        elif isinstance(value, list) and value:
            for run in runs:
                assert not contains_run(value, run), f"{where}: hidden order {run} in {value}"
    text = json.dumps(body)
    for run in runs:
        assert json.dumps(run)[1:-1] not in text, f"{where}: hidden order {run} in the body"


def check_cardless(body: Any, where: str) -> None:
    """A body about no one game (leaderboard, live list, daily list, a player's
    record) names no card at all."""
    for value in walk(body):
        if isinstance(value, str):
            assert not CARD.findall(value), f"{where}: a card named in {value!r}"


def check_view(view: dict[str, Any], game: Game, *, owner_playing: bool, where: str) -> None:
    """The view is the engine's redacted view: each column's face-down cards and
    the whole stock are null, every other card as it is."""
    piles = view["piles"]
    assert set(piles) == set(game.pile_ids), where
    assert view["down"] == game.down, where
    for pile, cards in game.piles.items():
        texts = [c.text for c in cards]
        hidden = len(cards) if pile == "s" else game.down.get(pile, 0)
        assert len(piles[pile]) == len(cards), f"{where}: {pile}"
        assert piles[pile][:hidden] == [None] * hidden, f"{where}: {pile} shows hidden cards"
        assert piles[pile][hidden:] == texts[hidden:], f"{where}: {pile}"
    targets = view.get("targets", [])
    for target in targets:
        # "tap": where a double tap plays these cards (issue 24), one of "to": what the
        # player sees decides it (the top card, the columns' lengths), as the order does.
        assert set(target) - {"tap"} == {"from", "count", "to"}, f"{where}: {target}"
        assert target.get("tap", target["to"][0]) in target["to"], f"{where}: {target}"
        assert target["from"] in game.pile_ids, f"{where}: {target}"
        assert type(target["count"]) is int, f"{where}: {target}"
        assert target["to"] and set(target["to"]) <= set(game.pile_ids), f"{where}: {target}"
    if owner_playing:
        assert targets == game.targets_json(), where
    check_finish(view, game, owner_playing=owner_playing, where=where)


def check_finish(view: dict[str, Any], game: Game, *, owner_playing: bool, where: str) -> None:
    """``finish`` (auto-finish, issue 15): moves from a pile to a foundation spot,
    listed only when no card is hidden and none is left to draw (it would name
    them), exactly the engine's while the game is played, else nothing or those."""
    assert "finish" in view, f"{where}: the view has no finish"
    finish = view["finish"]
    assert isinstance(finish, list), f"{where}: {finish!r}"
    for action in finish:
        assert set(action) == {"type", "from", "to", "count"}, f"{where}: {action}"
        assert action["type"] == "move" and action["count"] == 1, f"{where}: {action}"
        assert action["from"] in game.pile_ids and action["from"][0] in "tcw", f"{where}: {action}"
        assert action["to"] in game.foundations, f"{where}: {action}"
    if finish:
        assert not hidden_positions(game), f"{where}: a finish while cards are hidden"
        assert not game.piles.get("w"), f"{where}: a finish with cards on the waste"
    engine = [m.to_json() for m in game.finishing_moves()]
    if owner_playing:
        assert finish == engine, f"{where}: finish {finish} is not the engine's {engine}"
    else:
        assert finish in ([], engine), f"{where}: finish {finish}"


def check_response(
    response: Any, attempt_id: int, where: str, problems: list[str] | None = None
) -> Any:
    """Check one response against the attempt's full state right after it.
    With ``problems``, a leak is noted there (and play goes on) instead of raised."""
    assert response.status_code < 500, (where, response.content)
    body = response.json()
    game = engine_state(attempt_id)
    try:
        if "view" in body:
            playing = body["status"] == "playing"
            check_view(body["view"], game, owner_playing=playing, where=where)
        check_hidden(body, game, where)
    except AssertionError as exc:
        if problems is None:
            raise
        problems.append(str(exc).splitlines()[0])
    return body


def odd_actions(view: dict[str, Any], rng: random.Random) -> list[dict[str, Any]]:
    """Actions likely refused: groups reaching face-down cards, taps, bad drops."""
    piles = view["piles"]
    columns = [p for p in piles if p[0] == "t" and piles[p]]
    src = rng.choice(columns)
    count = rng.randint(1, len(piles[src]))
    other = rng.choice([p for p in piles if p[0] in "tcf" and p != src])
    return [
        {"type": "double_tap", "from": src, "count": count},
        {"type": "tap", "from": src, "count": count},
        {"type": "tap", "from": src},
        {"type": "move", "from": src, "to": other, "count": count},
        {"type": "move", "from": src, "to": "f"},
        {"type": "move", "from": src, "to": src},
        {"type": "double_tap", "from": src},
        {"type": "stock"},
        {"type": "move", "from": rng.choice(list(piles)), "to": "t1"},
    ]


def prepared(variant: str, date: dt.date | None = None) -> DailyDeal:
    """A daily as the job prepares it: a secret key, proven, with its proof."""
    daily = daily_deal_prepare(date=date or utc_today(), variant=variant)
    assert daily.proof and GameCode.parse(daily.deal.code).long
    return daily


def secrets_of(daily: DailyDeal) -> list[str]:
    return code_secrets(daily.deal.code)


def swap_deal(running: DailyDeal) -> None:
    """Another deal under ``running`` (the next day's, as the job prepares it),
    everything public about the day left as it was; the cache cleared, so that
    what a page or image shows next is drawn again."""
    other = prepared(running.variant, running.date + dt.timedelta(days=1))
    assert other.deal.code != running.deal.code
    running.deal, running.proof, running.par = other.deal, other.proof, other.par
    running.save(update_fields=["deal", "proof", "par"])
    cache.clear()


def meta_cards(html: bytes) -> str:
    """A page's link-preview cards: its OpenGraph, Twitter and description tags."""
    return "\n".join(CARD_META.findall(html.decode()))


def assert_bare_png(image: bytes, where: str) -> None:
    """``image`` is a PNG with no text chunk, nor any metadata but its
    resolution, gamma and colour space."""
    with Image.open(io.BytesIO(image)) as png:
        assert png.format == "PNG" and not png.info.get("text"), (where, png.info)
        assert not {k for k in png.info if k not in ("dpi", "gamma", "srgb")}, (where, png.info)


@dataclass
class Wire:
    """Everything the service sent, byte for byte, with where it went."""

    received: list[tuple[str, bytes]] = field(default_factory=list)

    def http(self, where: str, response: Any) -> Any:
        assert response.status_code < 500, (where, response.content[:300])
        self.received.append((where, bytes(response.content)))
        return response

    def frame(self, where: str, text: str) -> dict[str, Any]:
        self.received.append((where, text.encode()))
        return json.loads(text)

    def assert_never_named(self, daily: DailyDeal) -> None:
        for where, blob in self.received:
            text = blob.decode("utf-8", "replace")
            for secret in secrets_of(daily):
                assert secret not in text, f"{where} carries {secret!r} of the running daily"
