"""Helpers for the fair-play review tests (``tests/games/test_fairplay.py``,
``tests/system/hostile/test_fairplay_bot.py``): today's daily prepared as the job
prepares it, games played through the real HTTP API, and a clock.

**Why a clock.** The review reads the server's time of each action
(``Action.ms``), which the service takes from ``django.utils.timezone.now``.
A test cannot wait seconds between actions, and a test client posting as fast
as it can is itself a bot. So ``Clock`` replaces ``timezone.now`` (Django's,
not ours) with a clock that stands still until the test moves it: the gaps
between actions are then exactly the ones the test plays, and everything else
— the service, the action log, the replay check, the review job run on commit
— is the real code reading that clock.

The clock starts at 01:00 UTC of the real day, not at the real time: a test
plays up to an hour of clock, and one started at 23:40 would see its daily end
mid-game (a clean-clone CI run did). Model fields whose default is
``timezone.now`` (an attempt's ``started_at``) bound the real function when
the model was defined, so the clock points their defaults at itself too.
"""

from __future__ import annotations

import datetime as dt
import functools
import itertools
from collections.abc import Iterable, Sequence
from typing import Any

from django.apps import apps
from django.contrib.auth.models import Permission
from django.utils import timezone

from accounts.models import User
from games.dailies import daily_deal_prepare, deal_get, utc_today
from games.engine import GameCode, Undo, new_game, solve
from games.engine.history import UNDO_LIMIT
from games.engine.solver import Outcome
from games.models import Attempt, DailyDeal

_addresses = itertools.count(1)


class Clock:
    """``timezone.now`` and every model default of it, standing still at 01:00
    UTC of the real day until ``advance``d."""

    def __init__(self, monkeypatch: Any) -> None:
        real = timezone.now
        self.now = dt.datetime.combine(real().astimezone(dt.UTC).date(), dt.time(1), tzinfo=dt.UTC)
        monkeypatch.setattr(timezone, "now", lambda: self.now)
        for model in apps.get_models():
            for field in model._meta.concrete_fields:
                if field.default is real:
                    monkeypatch.setattr(field, "_get_default", lambda: self.now)

    def advance(self, seconds: float) -> None:
        self.now += dt.timedelta(seconds=seconds)


def today_daily(variant: str) -> DailyDeal:
    """Today's daily of ``variant`` as the preparation job makes it: a secret
    key, proven winnable, with its ``proof`` and ``par``."""
    daily = daily_deal_prepare(date=utc_today(), variant=variant)
    assert daily.proof and daily.par == len(daily.proof), daily
    return daily


@functools.cache
def proof_of(code: str) -> tuple[dict[str, Any], ...]:
    """The solver's line of ``code`` (it sees every card), as a daily's proof."""
    game = new_game(code)
    result = solve(game, nodes=200_000)
    assert result.outcome is Outcome.SOLVED, code
    return tuple(game.apply(action).to_json() for action in result.line)


def today_is(code: str) -> DailyDeal:
    """Today's Easy Harp daily is ``code``, with the solver's line as its proof
    (stored directly: the job's choice is not in question here)."""
    proof = list(proof_of(code))
    return DailyDeal.objects.create(
        date=utc_today(),
        variant="EH1-N",
        deal=deal_get(code=GameCode.parse(code)),
        proven=True,
        proof=proof,
        par=len(proof),
    )


def own_address(client: Any) -> str:
    """Give the test client an address of its own (test clients all come from
    127.0.0.1, which would make every test a crowd behind one address), in an
    address group (/24) of its own too: the review pools what the games from one
    group saw (``pooled_scouts``, issue 36), and players the test keeps apart
    must not be linked by it. ``10.N.M.1``, N.M counting up (65,536 groups)."""
    number = next(_addresses)
    address = f"10.{number // 256 % 256}.{number % 256}.1"
    client.defaults["REMOTE_ADDR"] = address
    return address


def joined_before_today(client: Any) -> None:
    """Test setup: the account is older than today (registration just made it)."""
    User.objects.filter(username=client.username).update(
        date_joined=timezone.now() - dt.timedelta(days=30)
    )


def older_account(make_player: Any) -> Any:
    """A player made a month ago, with an address of its own."""
    client = make_player()
    joined_before_today(client)
    own_address(client)
    return client


def start_daily(client: Any, variant: str) -> dict[str, Any]:
    response = client.send("/api/games/", {"daily": variant})
    assert response.status_code in (200, 201), response.content
    body = response.json()
    assert body["ranked"] is True
    return body


def play(
    client: Any,
    attempt_id: int,
    actions: Iterable[dict[str, Any]],
    clock: Clock,
    *,
    gaps: Sequence[float],
    first: float = 3.0,
) -> dict[str, Any]:
    """Post ``actions`` one by one through the API, the clock moved ``first``
    seconds before the first and then by ``gaps`` (cycled) before each next."""
    attempt = Attempt.objects.get(pk=attempt_id)
    body: dict[str, Any] = {}
    pace = itertools.cycle(gaps)
    for index, action in enumerate(actions):
        clock.advance(first if index == 0 else next(pace))
        seq = attempt.seq + index
        response = client.send(f"/api/games/{attempt_id}/actions/", {"seq": seq, "action": action})
        assert response.status_code == 200, (seq, action, response.content)
        body = response.json()
    return body


def with_undos(line: Sequence[dict[str, Any]], at: Sequence[int]) -> list[dict[str, Any]]:
    """``line`` with, after each index in ``at``, an undo and the same action
    again: a player who took a move back and thought better of it."""
    out: list[dict[str, Any]] = []
    for index, action in enumerate(line):
        out.append(action)
        if index in at:
            out += [{"type": "undo"}, action]
    return out


HUMAN_GAPS = (2.4, 1.1, 3.8, 1.6, 5.2, 0.9, 2.0, 7.5, 1.3, 2.7)
"""Seconds between a person's actions: never under a second or so, often more."""


def with_detours(
    code: str, line: Sequence[dict[str, Any]], at: Iterable[int]
) -> list[dict[str, Any]]:
    """``line`` with, before each index in ``at``, a different card move tried and
    undone: a player looking at where a card would go, then thinking better of it.
    Where no other card move exists (the day's deal decides), the detour is
    taken at the next index that has one."""
    at = set(at)
    game = new_game(code)
    out: list[dict[str, Any]] = []
    owed = 0
    for index, action in enumerate(line):
        owed += index in at
        if owed:
            planned = game.parse_action(action)
            for move in game.legal_moves:
                if move.type == "move" and move != planned and move != game.resolve(planned):
                    out += [move.to_json(), {"type": "undo"}]
                    game.apply(move)
                    game.apply(Undo())
                    owed -= 1
                    break
        out.append(game.apply(game.parse_action(action)).to_json())
    return out


def scout_line(code: str, proof: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """What a scout does to learn a hidden-card daily (issue 25): one pass through
    the whole stock, then the winning line until no card is face down, then
    back with undo as far as the undo history goes — everything seen, little
    kept. (A scout with a program explores like this; one by hand takes longer.)"""
    game = new_game(code)
    out = [{"type": "stock"}] * (len(game.piles["s"]) + 1)
    for action in out:
        game.apply(game.parse_action(action))
    for action in proof:
        if not any(game.down.values()):
            break
        out.append(game.apply(game.parse_action(action)).to_json())
    return out + [{"type": "undo"}] * UNDO_LIMIT


def scout(client: Any, clock: Clock, *, resign: bool = True) -> int:
    """Learn today's Easy Harp daily in well under a minute (``scout_line``), and
    give up: the scout's ranked attempt's id."""
    daily = today_daily("EH1-N")
    game = start_daily(client, "EH1-N")
    play(client, game["id"], scout_line(daily.deal.code, daily.proof), clock, gaps=(0.1,))
    if resign:
        resign_game(client, game["id"], clock)
    return game["id"]


def resign_game(client: Any, attempt_id: int, clock: Clock) -> None:
    clock.advance(2)
    response = client.send(f"/api/games/{attempt_id}/resign/")
    assert response.status_code == 200, response.content


def play_a_little_and_resign(client: Any, clock: Clock, variant: str = "SH1-C4") -> int:
    daily = today_daily(variant)
    game = start_daily(client, variant)
    play(client, game["id"], daily.proof[:3], clock, gaps=HUMAN_GAPS)
    clock.advance(4)
    response = client.send(f"/api/games/{game['id']}/resign/")
    assert response.status_code == 200, response.content
    return game["id"]


def make_staff(name: str = "referee") -> User:
    staff = User.objects.create_user(name, password="correct horse battery", is_staff=True)
    staff.user_permissions.add(
        *Permission.objects.filter(
            content_type__app_label="games", codename__in=("view_review", "change_review")
        )
    )
    return User.objects.get(pk=staff.pk)  # permissions are cached per instance
