"""The games contract of PRODUCT.md (HTTP API): daily deals, starting attempts,
actions with ``seq``, idempotent resends, races, a won game, resigning, replays
and the server's clock (RULES.md C11)."""

from __future__ import annotations

import datetime as dt
import functools
import hashlib
import time
from typing import Any

import pytest

from games import dailies
from games.engine import (
    ALL_VARIANTS,
    DoubleTap,
    Game,
    GameCode,
    IllegalActionError,
    Move,
    Tap,
    Undo,
    load_game,
    new_game,
    replay,
)
from games.models import Action, Attempt, DailyDeal
from tests.support.api import Client, act, requires_postgres, run_at_once
from tests.support.api import start as start_game
from tests.support.search import find_win

PASSWORD = "correct horse battery"  # make_player's default
WIN_CODE = "SH1-C4-AAAAAAE"  # deal 4: the search of tests/support/search.py wins it at once
PRACTICE_CODE = "SH1-C4-AAAAAJ2"

PILES = {
    "EH1-N": {*(f"t{i}" for i in range(1, 10)), "s", "w", *(f"f{i}" for i in range(1, 9))},
    **{
        f"SH1-C{n}": {
            *(f"t{i}" for i in range(1, 11)),
            *(f"c{i}" for i in range(1, n + 1)),
            *(f"f{i}" for i in range(1, 5)),
        }
        for n in (4, 2, 1)
    },
}
ATTEMPT_KEYS = {"id", "ranked", "status", "seq", "view", "started_at", "finished_at", "elapsed_ms"}
DAILY_ENTRY_KEYS = {
    "variant",
    "commitment",
    "par",
    "proven",
    "status",
    "attempt",
    "score",
    "replays_open",
    "leaderboard",
    "difficulty",  # issue 27: predicted (counts only), measured once over, histogram
}


# --- helpers -----------------------------------------------------------------------------


def utc_today() -> str:
    return dt.datetime.now(dt.UTC).date().isoformat()


start = functools.partial(start_game, status=201)  # a new game, unless told


def ok(response: Any, status: int = 200) -> dict[str, Any]:
    assert response.status_code == status, response.content
    return response.json()


def error(response: Any, status: int) -> dict[str, Any]:
    assert response.status_code == status, response.content
    body = response.json()
    assert set(body) == {"error"}, body
    assert body["error"]["code"] and body["error"]["message"], body
    return body["error"]


def stored(attempt_id: int) -> Attempt:
    return Attempt.objects.get(pk=attempt_id)


def assert_view_is(view: dict[str, Any], game: Game, daily: str | None = None) -> None:
    """The response's view is the engine's player view of ``game``, plus its targets;
    for the ``daily`` variant of today's daily deal, with its code null and the
    day named instead (PRODUCT.md, "Fair daily deals")."""
    view = dict(view)
    targets = view.pop("targets")
    expected = game.view()
    if daily is not None:
        expected.update(code=None, daily={"date": utc_today(), "variant": daily})
    assert view == expected
    assert targets == game.targets_json()


def daily_code(variant: str) -> str:
    """Today's daily code of ``variant``, read from the database: while the day runs
    the API never sends it."""
    return dailies.daily_deal_get(date=dailies.utc_today(), variant=variant).deal.code


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def when(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


def login(username: str) -> Client:
    client = Client()
    response = client.send("/api/auth/login/", {"username": username, "password": PASSWORD})
    assert response.status_code == 200, response.content
    return client


def first_legal(game: Game, skip: int = 0) -> Move:
    moves = [m for m in game.legal_moves if isinstance(m, Move)]
    return moves[skip]


# --- GET /api/daily/ -----------------------------------------------------------------------


def test_daily_lists_one_deal_per_variant_created_on_demand(anon):
    assert not DailyDeal.objects.exists()
    response = anon.get("/api/daily/")
    body = ok(response)
    assert body["date"] == utc_today()
    assert body["over"] is False
    assert [d["variant"] for d in body["deals"]] == list(ALL_VARIANTS)
    for entry in body["deals"]:
        # A running day names no code: a commitment and par only (made on demand: unproven).
        assert set(entry) == DAILY_ENTRY_KEYS
        assert entry["status"] == "not_started" and entry["attempt"] is None
        assert entry["score"] is None and entry["replays_open"] is False
        assert entry["proven"] is False and entry["par"] is None
        assert entry["leaderboard"] == f"/api/leaderboard/{utc_today()}/{entry['variant']}/"
    made = DailyDeal.objects.filter(date=body["date"])
    assert made.count() == 4
    for daily in made:
        # A secret 26-character deal key of the right variant (never a numbered deal).
        code = GameCode.parse(daily.deal.code)
        assert code.long and len(code.deal) == 26 and code.variant_id == daily.variant
        assert new_game(daily.deal.code).code.variant_id == daily.variant
        assert code.deal not in response.content.decode()
    assert {d.variant: sha256(d.deal.code) for d in made} == {
        d["variant"]: d["commitment"] for d in body["deals"]
    }
    # Asking again gives the same deals and makes nothing new.
    again = ok(anon.get("/api/daily/"))
    assert again["deals"] == body["deals"]
    assert ok(anon.get(f"/api/daily/{utc_today()}/"))["deals"] == body["deals"]
    assert DailyDeal.objects.count() == 4

    # Once the day is over, its page reveals each code (and proof) for anyone to check.
    yesterday = dt.date.fromisoformat(utc_today()) - dt.timedelta(days=1)
    made.update(date=yesterday)
    past = ok(anon.get(f"/api/daily/{yesterday}/"))
    assert past["over"] is True
    codes = {d.variant: d.deal.code for d in DailyDeal.objects.filter(date=yesterday)}
    for entry in past["deals"]:
        assert set(entry) == DAILY_ENTRY_KEYS | {"code", "proof", "results"}
        assert entry["results"] is None  # its results file is not built yet (issue 27)
        assert entry["code"] == codes[entry["variant"]]
        assert sha256(entry["code"]) == entry["commitment"]
        assert entry["proof"] is None  # made on demand: unproven
        assert entry["replays_open"] is True


def test_daily_shows_the_players_status_and_attempt(player):
    started = start(player, daily="SH1-C2")
    assert started["code"] is None and started["view"]["code"] is None
    deals = {d["variant"]: d for d in ok(player.get("/api/daily/"))["deals"]}
    assert deals["SH1-C2"]["status"] == "playing"
    assert deals["SH1-C2"]["attempt"] == started["id"]
    assert deals["SH1-C2"]["score"] == started["score"]
    assert deals["SH1-C2"]["replays_open"] is False
    # The attempt plays the committed deal; its code is read from the database
    # (the API never sends it while the day runs).
    assert deals["SH1-C2"]["commitment"] == sha256(stored(started["id"]).deal.code)
    assert "code" not in deals["SH1-C2"]
    for variant in ("EH1-N", "SH1-C4", "SH1-C1"):
        assert deals[variant]["status"] == "not_started" and deals[variant]["attempt"] is None

    ok(player.send(f"/api/games/{started['id']}/resign/"))
    deals = {d["variant"]: d for d in ok(player.get("/api/daily/"))["deals"]}
    assert deals["SH1-C2"]["status"] == "resigned"
    assert deals["SH1-C2"]["attempt"] == started["id"]
    assert deals["SH1-C2"]["replays_open"] is False  # resigning is not winning


# --- POST /api/games/ ----------------------------------------------------------------------


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_start_daily_gives_the_ranked_attempt_once(player, variant):
    commitment = {d["variant"]: d["commitment"] for d in ok(player.get("/api/daily/"))["deals"]}
    code = daily_code(variant)  # from the database: the API never sends it
    assert sha256(code) == commitment[variant]
    assert GameCode.parse(code).long
    response = player.send("/api/games/", {"daily": variant})
    assert response.status_code == 201, response.content
    assert GameCode.parse(code).deal not in response.content.decode()
    attempt = response.json()
    assert set(attempt) >= ATTEMPT_KEYS
    assert attempt["ranked"] is True
    assert attempt["status"] == "playing"
    assert attempt["seq"] == 0
    assert attempt["code"] is None and attempt["view"]["code"] is None
    assert attempt["view"]["daily"] == {"date": utc_today(), "variant": variant}
    assert attempt["variant"] == variant and attempt["daily"] == utc_today()
    assert stored(attempt["id"]).deal.code == code
    assert set(attempt["view"]["piles"]) == PILES[variant]  # C21
    assert set(attempt["view"]["down"]) == {p for p in PILES[variant] if p[0] == "t"}
    assert_view_is(attempt["view"], new_game(code), daily=variant)

    time.sleep(0.02)
    again = start(player, status=200, daily=variant)
    assert again["id"] == attempt["id"]
    assert again["ranked"] is True
    assert again["code"] is None and again["view"]["code"] is None
    assert again["started_at"] == attempt["started_at"]  # the first opening counts (C11)
    assert Attempt.objects.filter(ranked=True).count() == 1


@pytest.mark.parametrize("variant", ALL_VARIANTS)
def test_start_random_practice(player, variant):
    attempt = start(player, random=variant)
    assert attempt["ranked"] is False
    assert attempt["status"] == "playing" and attempt["seq"] == 0
    code = attempt["view"]["code"]
    assert new_game(code).code.variant_id == variant
    assert set(attempt["view"]["piles"]) == PILES[variant]
    assert "targets" in attempt["view"]
    assert_view_is(attempt["view"], new_game(code))
    assert not stored(attempt["id"]).ranked


def test_start_by_code_deals_exactly_that_deal(player):
    attempt = start(player, code=PRACTICE_CODE)
    assert attempt["ranked"] is False and attempt["status"] == "playing"
    assert attempt["view"]["code"] == PRACTICE_CODE
    assert set(attempt["view"]["piles"]) == PILES["SH1-C4"]
    assert_view_is(attempt["view"], new_game(PRACTICE_CODE))
    assert load_game(stored(attempt["id"]).state) == new_game(PRACTICE_CODE)
    # Asking again for a practice game gives a new one.
    assert start(player, code=PRACTICE_CODE)["id"] != attempt["id"]


def test_get_game_returns_the_attempt_object(player):
    attempt = start(player, code=PRACTICE_CODE)
    got = ok(player.get(f"/api/games/{attempt['id']}/"))
    for key in set(attempt) - {"elapsed_ms"}:
        assert got[key] == attempt[key], key
    assert got["elapsed_ms"] >= attempt["elapsed_ms"]


# --- actions -------------------------------------------------------------------------------


def test_actions_apply_in_seq_order_and_match_the_engine(player):
    attempt = start(player, code=PRACTICE_CODE)
    game = new_game(PRACTICE_CODE)
    for n in range(6):
        move = first_legal(game, skip=n % 2)
        body = ok(act(player, attempt["id"], n, move.to_json()))
        game.apply(move)
        assert body["seq"] == n + 1
        assert body["duplicate"] is False
        assert body["moves"] == game.moves and body["score"] == game.score
        assert_view_is(body["view"], game)
        assert stored(attempt["id"]).seq == n + 1
    assert load_game(stored(attempt["id"]).state) == game
    assert Action.objects.filter(attempt_id=attempt["id"]).count() == 6


def test_taps_are_recorded_resolved_and_undo_counts_for_seq(player):
    attempt = start(player, code=WIN_CODE)
    game = new_game(WIN_CODE)
    sent = [Tap("t4"), DoubleTap("t1"), DoubleTap("t2"), Undo()]
    resolved = []
    for seq, action in enumerate(sent):
        moves_before = game.moves
        resolved.append(game.apply(action))
        body = ok(act(player, attempt["id"], seq, action.to_json()))
        assert body["seq"] == seq + 1  # undo counts like any action
        assert_view_is(body["view"], game)
        if isinstance(action, Undo):
            assert body["moves"] == moves_before  # C5
    assert resolved[0] == Move("t4", "f3")
    assert all(isinstance(r, Move) for r in resolved[:3])
    rows = list(Action.objects.filter(attempt_id=attempt["id"]).order_by("seq"))
    assert [r.action for r in rows] == [r.to_json() for r in resolved]

    ok(player.send(f"/api/games/{attempt['id']}/resign/"))
    shown = ok(player.get(f"/api/games/{attempt['id']}/replay/"))
    assert shown["actions"] == [r.to_json() for r in resolved]
    assert replay(WIN_CODE, shown["actions"]) == load_game(stored(attempt["id"]).state)


def test_an_illegal_action_is_refused_with_the_engines_code(player):
    attempt = start(player, code=PRACTICE_CODE)
    ok(act(player, attempt["id"], 0, first_legal(new_game(PRACTICE_CODE)).to_json()))
    before = stored(attempt["id"])
    game = load_game(before.state)
    refused = [
        Move("t1", "t2"),
        Move("t3", "t3"),
        Tap("t2"),
        Move("c1", "c2"),
        Move("t5", "t6", 3),
    ]
    for action in refused:
        with pytest.raises(IllegalActionError) as expected:
            game.copy().apply(action)
        err = error(act(player, attempt["id"], 1, action.to_json()), 422)
        assert err["code"] == expected.value.code, action
        assert err["message"] == expected.value.message
        after = stored(attempt["id"])
        assert after.seq == 1 and after.state == before.state and after.moves == before.moves
    assert Action.objects.filter(attempt_id=attempt["id"]).count() == 1
    body = ok(player.get(f"/api/games/{attempt['id']}/"))
    assert body["seq"] == 1
    assert_view_is(body["view"], game)


def test_resending_an_action_applies_it_once(player):
    attempt = start(player, code=PRACTICE_CODE)
    game = new_game(PRACTICE_CODE)
    move, other = first_legal(game), first_legal(game, skip=1)
    first = ok(act(player, attempt["id"], 0, move.to_json()))
    assert first["seq"] == 1 and first["duplicate"] is False

    again = ok(act(player, attempt["id"], 0, move.to_json()))
    assert again["seq"] == 1
    assert again["duplicate"] is True
    assert again["view"] == first["view"]
    assert again["moves"] == 1
    assert Action.objects.filter(attempt_id=attempt["id"]).count() == 1

    # An old seq with another action: a conflict naming the current seq.
    err = error(act(player, attempt["id"], 0, other.to_json()), 409)
    assert err["seq"] == 1
    # A seq from the future: the same.
    err = error(act(player, attempt["id"], 5, other.to_json()), 409)
    assert err["seq"] == 1
    err = error(act(player, attempt["id"], 2, move.to_json()), 409)
    assert err["seq"] == 1
    assert stored(attempt["id"]).seq == 1
    assert Action.objects.filter(attempt_id=attempt["id"]).count() == 1


def test_client_cannot_send_its_own_clock(player):
    response = player.send("/api/games/", {"code": PRACTICE_CODE, "started_at": "2000-01-01"})
    error(response, 400)
    attempt = start(player, code=PRACTICE_CODE)
    move = first_legal(new_game(PRACTICE_CODE)).to_json()
    response = player.send(
        f"/api/games/{attempt['id']}/actions/", {"seq": 0, "action": move, "ms": 1}
    )
    error(response, 400)
    assert stored(attempt["id"]).seq == 0


# --- races ---------------------------------------------------------------------------------


@requires_postgres
@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("n", [2, 4])
def test_the_same_action_sent_at_once_is_applied_once(make_player, n):
    owner = make_player()
    clients = [owner] + [login(owner.username) for _ in range(n - 1)]
    attempt = start(owner, code=PRACTICE_CODE)
    game = new_game(PRACTICE_CODE)
    for seq in range(3):
        move = first_legal(game, skip=seq % 2)
        game.apply(move)
        results = run_at_once(
            [lambda c=c, m=move, s=seq: act(c, attempt["id"], s, m.to_json()) for c in clients]
        )
        assert [status for status, _ in results] == [200] * n, results
        assert {body["seq"] for _, body in results} == {seq + 1}
        views = [body["view"] for _, body in results]
        assert all(view == views[0] for view in views)
        assert_view_is(views[0], game)
        assert sorted(body["duplicate"] for _, body in results) == [False] + [True] * (n - 1)
        assert Action.objects.filter(attempt_id=attempt["id"]).count() == seq + 1
    assert load_game(stored(attempt["id"]).state) == game


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_two_different_actions_with_the_same_seq_one_wins(make_player):
    owner = make_player()
    clients = [owner, login(owner.username)]
    attempt = start(owner, code=PRACTICE_CODE)
    game = new_game(PRACTICE_CODE)
    for seq in range(3):
        moves = [first_legal(game), first_legal(game, skip=1)]
        results = run_at_once(
            [
                lambda c=c, m=m, s=seq: act(c, attempt["id"], s, m.to_json())
                for c, m in zip(clients, moves, strict=True)
            ]
        )
        statuses = [status for status, _ in results]
        assert sorted(statuses) == [200, 409], results
        winner = statuses.index(200)
        game.apply(moves[winner])
        assert results[winner][1]["seq"] == seq + 1
        assert_view_is(results[winner][1]["view"], game)
        assert results[1 - winner][1]["error"]["seq"] == seq + 1
        assert Action.objects.filter(attempt_id=attempt["id"]).count() == seq + 1
    assert load_game(stored(attempt["id"]).state) == game


# --- a whole game: win, replay, clock -------------------------------------------------------


def test_a_real_deal_played_to_a_win(player):
    line = find_win(WIN_CODE)
    assert line is not None
    attempt = start(player, code=WIN_CODE)
    game = new_game(WIN_CODE)
    body = attempt
    for seq, action in enumerate(line):
        assert body["status"] == "playing" and body["finished_at"] is None
        body = ok(act(player, attempt["id"], seq, action.to_json()))
        game.apply(action)
        assert body["seq"] == seq + 1
    assert game.won
    assert_view_is(body["view"], game)
    assert body["status"] == "won"
    assert body["won"] is True and body["view"]["won"] is True
    assert body["score"] == 520
    assert body["moves"] == len(line)
    assert body["finished_at"] is not None
    assert when(body["finished_at"]) >= when(body["started_at"])
    elapsed = body["elapsed_ms"]
    assert isinstance(elapsed, int)
    assert elapsed == pytest.approx(
        (when(body["finished_at"]) - when(body["started_at"])).total_seconds() * 1000, abs=1
    )
    time.sleep(0.05)
    later = ok(player.get(f"/api/games/{attempt['id']}/"))
    assert later["elapsed_ms"] == elapsed  # the clock stopped at the winning move (C11)
    assert later["status"] == "won"

    # Nothing more is accepted, undo included (C19); resigning neither.
    for action in ({"type": "undo"}, line[-1].to_json()):
        err = error(act(player, attempt["id"], len(line), action), 409)
        assert err["code"] == "finished"
    error(player.send(f"/api/games/{attempt['id']}/resign/"), 409)
    assert stored(attempt["id"]).seq == len(line)
    assert Action.objects.filter(attempt_id=attempt["id"]).count() == len(line)

    shown = ok(player.get(f"/api/games/{attempt['id']}/replay/"))
    assert shown["code"] == WIN_CODE
    assert shown["deal"] == new_game(WIN_CODE).view(full=True)
    assert shown["actions"] == [a.to_json() for a in line]
    final = replay(WIN_CODE, shown["actions"])
    assert final == load_game(stored(attempt["id"]).state)
    assert final.won and final.score == 520
    assert len(shown["log"]) == len(line)
    assert all(set(entry) >= {"ms", "score", "moves"} for entry in shown["log"])
    ms = [entry["ms"] for entry in shown["log"]]
    assert ms == sorted(ms) and ms[-1] <= elapsed
    check = new_game(WIN_CODE)
    for action, entry in zip(line, shown["log"], strict=True):
        check.apply(action)
        assert (entry["score"], entry["moves"]) == (check.score, check.moves)


def test_resign_stops_the_clock_and_only_once(player):
    attempt = start(player, code=PRACTICE_CODE)
    move = first_legal(new_game(PRACTICE_CODE))
    ok(act(player, attempt["id"], 0, move.to_json()))
    resigned = ok(player.send(f"/api/games/{attempt['id']}/resign/"))
    assert resigned["status"] == "resigned"
    assert resigned["won"] is False
    assert resigned["finished_at"] is not None
    elapsed = resigned["elapsed_ms"]
    time.sleep(0.05)
    assert ok(player.get(f"/api/games/{attempt['id']}/"))["elapsed_ms"] == elapsed

    err = error(player.send(f"/api/games/{attempt['id']}/resign/"), 409)
    assert err["code"] == "finished"
    game = load_game(stored(attempt["id"]).state)
    err = error(act(player, attempt["id"], 1, first_legal(game).to_json()), 409)
    assert err["code"] == "finished"
    after = stored(attempt["id"])
    assert after.seq == 1 and after.status == "resigned" and after.elapsed_ms == elapsed

    shown = ok(player.get(f"/api/games/{attempt['id']}/replay/"))
    assert shown["deal"] == new_game(PRACTICE_CODE).view(full=True)
    assert shown["actions"] == [move.to_json()]
    assert replay(PRACTICE_CODE, shown["actions"]) == game
    assert [e["moves"] for e in shown["log"]] == [1]


def test_replay_of_an_unfinished_game_is_refused(player):
    attempt = start(player, code=PRACTICE_CODE)
    ok(act(player, attempt["id"], 0, first_legal(new_game(PRACTICE_CODE)).to_json()))
    err = error(player.get(f"/api/games/{attempt['id']}/replay/"), 409)
    assert "deal" not in err and "actions" not in err


def test_the_clock_is_the_servers_and_runs_while_playing(player):
    before = dt.datetime.now(dt.UTC)
    attempt = start(player, code=PRACTICE_CODE)
    after = dt.datetime.now(dt.UTC)
    started = when(attempt["started_at"])
    assert before - dt.timedelta(seconds=1) <= started <= after + dt.timedelta(seconds=1)
    assert attempt["finished_at"] is None
    first = ok(player.get(f"/api/games/{attempt['id']}/"))["elapsed_ms"]
    time.sleep(0.05)
    second = ok(player.get(f"/api/games/{attempt['id']}/"))["elapsed_ms"]
    assert second >= first + 50
    moved = ok(act(player, attempt["id"], 0, first_legal(new_game(PRACTICE_CODE)).to_json()))
    assert moved["elapsed_ms"] >= second
    assert moved["started_at"] == attempt["started_at"]

    time.sleep(0.05)
    resigned = ok(player.send(f"/api/games/{attempt['id']}/resign/"))
    assert resigned["elapsed_ms"] >= second + 50
    assert resigned["started_at"] == attempt["started_at"]
    time.sleep(0.05)
    assert ok(player.get(f"/api/games/{attempt['id']}/"))["elapsed_ms"] == resigned["elapsed_ms"]
