"""``/api/races/…`` (docs/api.md, "Race rooms"): a whole race over HTTP, the
sealed games, the standings, the end, the rematch, and every refusal."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from games.dailies import daily_deal_get, utc_today
from games.engine import GameCode
from games.models import Attempt
from races import services
from races.models import Race, Racer
from races.services import races_end_due
from races.signals import race_finished
from tests.support.api import act, assert_error
from tests.support.races import WIN_CODE, create, get, post, win_line

FIRST = {"type": "move", "from": "t4", "to": "f3", "count": 1}  # A♦ home: legal at the start


@pytest.fixture
def no_countdown(monkeypatch):
    """The racers' clocks start at the host's start (the countdown is tested alone)."""
    monkeypatch.setattr(services, "COUNTDOWN", dt.timedelta(0))


@pytest.fixture
def finished():
    """Every ``race_finished`` sent, as (race_id, standings, variant)."""
    sent: list[tuple[int, list[tuple[int, int]], str]] = []

    def listen(sender: Any, *, race_id: int, standings: Any, variant: str, **kwargs: Any) -> None:
        sent.append((race_id, standings, variant))

    race_finished.connect(listen, dispatch_uid="tests.races.finished")
    yield sent
    race_finished.disconnect(dispatch_uid="tests.races.finished")


def by_player(race: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["player"]: r for r in race["racers"]}


@pytest.mark.django_db(transaction=True)
def test_a_whole_race_of_three(make_player, anon, no_countdown, finished):
    host, rival, leaver = make_player(), make_player(), make_player()
    race = create(host, {"code": WIN_CODE, "capacity": 3})
    slug = race["id"]
    assert len(slug) == 10 and race["url"] == f"/race/{slug}/"
    assert race["status"] == "open" and race["code"] is None  # never before the start
    assert race["you"] == {"racer": True, "host": True, "attempt": None}
    assert race["variant"] == "SH1-C4" and race["variant_name"]
    post(host, slug, "invite", {"username": rival.username})
    invited = rival.get("/api/races/?invited=1").json()
    assert [r["id"] for r in invited] == [slug]
    joined = post(rival, slug, "join")
    assert joined["you"] == {"racer": True, "host": False, "attempt": None}
    assert rival.get("/api/races/?invited=1").json() == []  # joined: no longer waiting
    post(leaver, slug, "join")
    assert [r["status"] for r in get(anon, slug)["racers"]] == ["waiting"] * 3

    started = post(host, slug, "start")
    assert started["status"] == "running" and started["code"] == WIN_CODE
    ids = {}
    for client in (host, rival, leaver):
        you = get(client, slug)["you"]
        assert you["racer"] and you["attempt"]
        ids[client.username] = you["attempt"]
    attempts = Attempt.objects.filter(pk__in=ids.values())
    assert {a.started_at for a in attempts} == {
        timezone.datetime.fromisoformat(started["starts_at"].replace("Z", "+00:00"))
    }  # one server instant for everyone
    assert all(a.sealed and not a.ranked for a in attempts)
    assert get(anon, slug)["you"] == {"racer": False, "host": False, "attempt": None}
    assert all(r["attempt"] is None for r in get(host, slug)["racers"])  # not while it runs

    # A rival's game stays theirs: not readable, not replayable, not listed live.
    assert_error(host.get(f"/api/games/{ids[rival.username]}/"), 403, "not_yours")
    assert_error(host.get(f"/api/games/{ids[rival.username]}/replay/"), 403, "sealed")
    assert ids[rival.username] not in [g["id"] for g in host.get("/api/live/").json()]
    # … and nobody moves it but its player: refused, progress unchanged.
    assert_error(act(host, ids[rival.username], 0, FIRST), 403, "not_yours")
    assert by_player(get(host, slug))[rival.username]["progress"]["moves"] == 0

    response = act(rival, ids[rival.username], 0, FIRST)
    assert response.status_code == 200, response.content
    shown = by_player(get(host, slug))[rival.username]["progress"]
    assert shown["home"] == [0, 0, 1, 0] and shown["moves"] == 1 and shown["uncovered"] == 0

    post(leaver, slug, "leave")  # before moving: marked, kept, last
    assert by_player(get(host, slug))[leaver.username]["status"] == "left"
    for seq, move in enumerate(win_line()):
        response = act(host, ids[host.username], seq, move.to_json())
        assert response.status_code == 200, response.content
    assert response.json()["won"] is True
    after_win = get(anon, slug)
    assert after_win["status"] == "running"
    assert by_player(after_win)[host.username]["status"] == "won"
    assert_error(host.get(f"/api/games/{ids[rival.username]}/replay/"), 403, "sealed")

    resigned = rival.send(f"/api/games/{ids[rival.username]}/resign/")
    assert resigned.status_code == 200, resigned.content
    over = get(anon, slug)
    assert over["status"] == "finished"
    places = [(r["player"], r["place"], r["status"]) for r in over["racers"]]
    assert places == [
        (host.username, 1, "won"),
        (rival.username, 2, "resigned"),
        (leaver.username, 3, "left"),
    ]
    assert {r["player"]: r["attempt"] for r in over["racers"]} == ids
    # Every racer's replay opens to anyone once the race is over.
    for attempt_id in ids.values():
        assert anon.get(f"/api/games/{attempt_id}/replay/").status_code in (401, 403)
        assert leaver.get(f"/api/games/{attempt_id}/replay/").status_code == 200
    assert not Attempt.objects.filter(pk__in=ids.values(), sealed=True).exists()
    users = {
        c.username: Racer.objects.get(race__slug=slug, player__username=c.username).player_id
        for c in (host, rival, leaver)
    }
    assert finished == [
        (
            Race.objects.get(slug=slug).pk,
            # The leaver never moved: in the standings, not rated (no opponent beaten).
            [(users[host.username], 1), (users[rival.username], 2)],
            "SH1-C4",
        )
    ]

    # The rematch: a new room, same host and variant, a new deal, the racers invited.
    assert_error(rival.send(f"/api/races/{slug}/rematch/"), 403, "not_host")
    rematch = post(host, slug, "rematch", status=201)
    assert rematch["id"] != slug and rematch["host"] == host.username
    assert rematch["variant"] == "SH1-C4" and rematch["status"] == "open"
    assert post(host, slug, "rematch", status=201)["id"] == rematch["id"]  # asked twice: one
    assert get(anon, slug)["rematch"] == rematch["id"]
    for client in (rival, leaver):
        assert [r["id"] for r in client.get("/api/races/?invited=1").json()] == [rematch["id"]]


@pytest.mark.django_db(transaction=True)
def test_the_race_ends_at_its_time_and_those_racing_resign(make_player, no_countdown, finished):
    host, rival = make_player(), make_player()
    slug = create(host, {"code": WIN_CODE})["id"]
    post(rival, slug, "join")
    post(host, slug, "start")
    mine = get(host, slug)["you"]["attempt"]
    assert act(host, mine, 0, FIRST).status_code == 200
    assert races_end_due() == 0  # not yet
    race = Race.objects.get(slug=slug)
    assert races_end_due(now=race.ends_at + dt.timedelta(seconds=1)) == 1
    assert races_end_due(now=race.ends_at + dt.timedelta(seconds=2)) == 0  # once
    over = get(host, slug)
    assert over["status"] == "finished"
    # Nobody won: more cards home first.
    assert [(r["player"], r["place"]) for r in over["racers"]] == [
        (host.username, 1),
        (rival.username, 2),
    ]
    assert all(r["status"] == "resigned" for r in over["racers"])
    assert Attempt.objects.get(pk=mine).status == "resigned"
    assert finished == []  # the rival never moved: one racer moved, nothing to rate


def moment(clock: Any, slug: str, seconds: float) -> None:
    """The server's clock ``seconds`` after the race's start."""
    clock.now = Race.objects.get(slug=slug).starts_at + dt.timedelta(seconds=seconds)


def player_ids(slug: str) -> dict[str, int]:
    racers = Racer.objects.filter(race__slug=slug)
    return dict(racers.values_list("player__username", "player_id"))


def live_places(race: dict[str, Any]) -> dict[str, int]:
    """The places the race JSON gives while ``race`` runs (the server's, live)."""
    return {r["player"]: r["place"] for r in race["racers"]}


@pytest.mark.django_db(transaction=True)
def test_standings_never_reward_quitting(make_player, no_countdown, finished, clock):
    """Issue 36 (PRODUCT.md, anti-cheat): among racers who did not finish, more
    cards home places higher, then whoever reached that count first; the moment
    a racer stopped never breaks a tie. Three racers end with one card home:

    - the patient one sends it home at 1 s, a second at 5 s, undoes that at 6 s
      (one card held since 1 s), and resigns last, at 20 s;
    - the quitter sends it home at 3 s and resigns at 3.5 s;
    - the third sends it at 2 s, undoes it at 4 s and sends it again at 10 s
      (held since 10 s: a count given up is reached again), and is still
      racing when the race's time runs out.

    Ordered by when they stopped (as they were) the quitter was 1st and the
    patient one 2nd; by when they reached their one card: patient, quitter,
    third — live (the places of the race JSON while it runs) and at the end
    alike, and the rating follows."""
    from leaderboard.models import RaceRating

    patient, quitter, third = make_player(), make_player(), make_player()
    slug = create(patient, {"code": WIN_CODE})["id"]
    post(quitter, slug, "join")
    post(third, slug, "join")
    post(patient, slug, "start")
    ids = {c.username: get(c, slug)["you"]["attempt"] for c in (patient, quitter, third)}
    home, undo = win_line()[0].to_json(), {"type": "undo"}
    assert win_line()[1].to_json()["to"].startswith("f")  # the line's second goes home too

    def at(seconds: float, client: Any, seq: int, action: dict[str, Any] | None) -> None:
        moment(clock, slug, seconds)
        if action is None:
            response = client.send(f"/api/games/{ids[client.username]}/resign/")
        else:
            response = act(client, ids[client.username], seq, action)
        assert response.status_code == 200, response.content

    at(1, patient, 0, home)
    at(2, third, 0, home)
    at(3, quitter, 0, home)
    at(3.5, quitter, 1, None)  # one card home, and gone
    at(4, third, 1, undo)
    at(5, patient, 1, win_line()[1].to_json())
    at(6, patient, 2, undo)
    at(10, third, 2, home)

    moment(clock, slug, 12)
    running = get(quitter, slug)
    shown = {r["player"]: r["progress"] for r in running["racers"]}
    assert {name: sum(p["home"]) for name, p in shown.items()} == dict.fromkeys(shown, 1)
    assert {name: p["home_ms"] for name, p in shown.items()} == {
        patient.username: 1000,
        quitter.username: 3000,
        third.username: 10000,
    }
    expected = {patient.username: 1, quitter.username: 2, third.username: 3}
    assert live_places(running) == expected

    at(20, patient, 3, None)
    race = Race.objects.get(slug=slug)
    clock.now = race.ends_at + dt.timedelta(seconds=1)
    assert races_end_due() == 1
    over = get(quitter, slug)
    assert {r["player"]: r["place"] for r in over["racers"]} == expected
    assert [r["player"] for r in over["racers"]] == list(expected)
    assert {r["player"]: r["status"] for r in over["racers"]} == dict.fromkeys(expected, "resigned")
    users = player_ids(slug)
    [(_, standings, _)] = finished
    assert standings == [(users[name], place) for name, place in expected.items()]
    ratings = dict(RaceRating.objects.values_list("player_id", "rating"))
    assert ratings[users[patient.username]] > ratings[users[quitter.username]]
    assert ratings[users[quitter.username]] > ratings[users[third.username]]


@pytest.mark.django_db(transaction=True)
def test_the_end_breaks_no_tie_and_equal_counts_reached_alike_share_a_place(
    make_player, no_countdown, finished, clock
):
    """The end resigns those still racing one after the other, each at its one
    instant; that instant breaks no tie: the two with a card home are placed by
    when they sent it, the two who sent none share the next place."""
    host, rival, third, fourth = make_player(), make_player(), make_player(), make_player()
    slug = create(host, {"code": WIN_CODE})["id"]
    for client in (rival, third, fourth):
        post(client, slug, "join")
    post(host, slug, "start")
    for seconds, client in ((2, rival), (4, host)):
        moment(clock, slug, seconds)
        assert act(client, get(client, slug)["you"]["attempt"], 0, FIRST).status_code == 200
    race = Race.objects.get(slug=slug)
    clock.now = race.ends_at + dt.timedelta(seconds=1)
    assert races_end_due() == 1
    over = get(host, slug)
    assert {r["player"]: r["place"] for r in over["racers"]} == {
        rival.username: 1,
        host.username: 2,
        third.username: 3,
        fourth.username: 3,
    }
    assert len({r.elapsed_ms for r in Racer.objects.filter(race=race)}) == 1
    users = player_ids(slug)
    [(_, standings, _)] = finished
    assert standings == [(users[rival.username], 1), (users[host.username], 2)]  # who moved


@pytest.mark.django_db(transaction=True)
def test_no_move_counts_before_the_countdown_ends(make_player):
    host, rival = make_player(), make_player()
    slug = create(host, {"code": WIN_CODE})["id"]
    post(rival, slug, "join")
    race = post(host, slug, "start")
    assert race["starts_at"] > race["created_at"]
    mine = get(host, slug)["you"]["attempt"]
    assert_error(act(host, mine, 0, FIRST), 409, "not_started")
    # The game's clock counts down to the start: the client's clock, running on
    # from the server's elapsed_ms, shows 0:00 until then (never the countdown's time).
    elapsed = host.get(f"/api/games/{mine}/").json()["elapsed_ms"]
    assert -services.COUNTDOWN.total_seconds() * 1000 <= elapsed < 0


@pytest.mark.django_db
def test_refusals(make_player, anon):
    host, other, third = make_player(), make_player(), make_player()
    today = daily_deal_get(date=utc_today(), variant="SH1-C4")
    # Today's daily, by date or by its code: never.
    assert_error(
        host.send("/api/races/", {"daily": utc_today().isoformat(), "variant": "SH1-C4"}),
        409,
        "day_running",
    )
    assert_error(host.send("/api/races/", {"code": today.deal.code}), 409, "day_running")
    assert_error(host.send("/api/races/", {"daily": "2001-01-01", "variant": "SH1-C4"}), 404)
    # Bad bodies: 400 naming the field.
    for body, field in [
        ({"code": WIN_CODE, "capacity": 1}, "capacity"),
        ({"code": WIN_CODE, "capacity": 51}, "capacity"),
        ({"code": WIN_CODE, "capacity": "2"}, "capacity"),
        ({"code": WIN_CODE, "speed": 2}, "speed"),
        ({"code": WIN_CODE, "random": "SH1-C4"}, "body"),
        ({}, "body"),
        ([], "body"),
        ({"daily": "2026-12-01"}, "variant"),
        ({"random": "SH1-C4", "variant": "SH1-C4"}, "variant"),
        ({"code": 7}, "code"),
    ]:
        error = assert_error(host.send("/api/races/", body), 400)
        assert field in str(error), (body, error)
    assert_error(host.send("/api/races/", {"code": "SH1-C9-AAAAAAE"}), 400)
    assert_error(host.send("/api/races/", {"random": "XX9"}), 400)
    assert_error(host.send("/api/races/", {"daily": "2026-13-01", "variant": "SH1-C4"}), 400)
    assert_error(anon.send("/api/races/", {"code": WIN_CODE}), (401, 403))

    slug = create(host, {"code": WIN_CODE, "capacity": 2})["id"]
    assert_error(host.send(f"/api/races/{slug}/start/"), 409, "too_few")
    assert_error(anon.get("/api/races/nosuchrace/"), 404, "not_found")
    assert_error(other.send("/api/races/nosuchrace/join/"), 404, "not_found")
    post(other, slug, "join")
    post(other, slug, "join")  # again: no error, one racer
    assert_error(third.send(f"/api/races/{slug}/join/"), 409, "full")
    assert_error(other.send(f"/api/races/{slug}/start/"), 403, "not_host")
    assert_error(other.send(f"/api/races/{slug}/invite/", {"username": "x"}), 403, "not_host")
    assert_error(host.send(f"/api/races/{slug}/invite/", {"username": "nobody-at-all"}), 404)
    assert_error(host.send(f"/api/races/{slug}/invite/", {"name": third.username}), 400)
    assert_error(host.send(f"/api/races/{slug}/rematch/"), 409, "not_finished")
    assert_error(third.send(f"/api/races/{slug}/leave/"), 409, "not_racing")
    post(host, slug, "start")
    assert_error(host.send(f"/api/races/{slug}/start/"), 409, "not_open")
    assert_error(third.send(f"/api/races/{slug}/join/"), 409, "closed_room")
    assert_error(host.send(f"/api/races/{slug}/invite/", {"username": third.username}), 409)
    assert_error(anon.get("/api/races/?invited=2"), (400, 401, 403))


@pytest.mark.django_db
def test_a_past_daily_and_a_random_deal(make_player):
    host = make_player()
    yesterday = utc_today() - dt.timedelta(days=1)
    past = daily_deal_get(date=yesterday, variant="SH1-C2")
    race = create(host, {"daily": yesterday.isoformat(), "variant": "SH1-C2"})
    # Neither the code nor the day before the start: the day would name the code.
    assert race["daily"] is None and race["code"] is None
    assert Race.objects.get(slug=race["id"]).deal == past.deal
    other = make_player()
    post(other, race["id"], "join")
    started = post(host, race["id"], "start")
    assert started["daily"] == yesterday.isoformat() and started["code"] == past.deal.code
    drawn = create(host, {"random": "EH1-N", "capacity": 2})
    assert drawn["variant"] == "EH1-N" and drawn["code"] is None
    assert len(by_player(drawn)[host.username]["progress"]["home"]) == 8
    # Easy Harp hides cards: a fresh secret key each time, never a code picked by someone.
    keys = {Race.objects.get(slug=drawn["id"]).deal.code}
    keys.add(Race.objects.get(slug=create(host, {"random": "EH1-N"})["id"]).deal.code)
    assert len(keys) == 2 and all(GameCode.parse(key).long for key in keys), keys
    assert_error(host.send("/api/races/", {"code": "EH1-N-AAAAAJ2"}), 409, "secret_deal")


@pytest.mark.django_db
def test_a_past_easy_harp_daily_is_never_raced(make_player, monkeypatch):
    """Easy Harp hides cards: its races are dealt a fresh secret key. A past
    day's deal is public (its day's page names the code), so a racer matching the
    face-up cards against the days revealed would print every hidden card — a
    past Easy Harp daily is refused (409 ``secret_deal``), today's too; a room on
    one opened before the refusal never starts. Seahaven's past days are raced."""
    host, other = make_player(), make_player()
    yesterday = utc_today() - dt.timedelta(days=1)
    past = daily_deal_get(date=yesterday, variant="EH1-N")
    for day in (yesterday, yesterday - dt.timedelta(days=6), utc_today()):
        error = assert_error(
            host.send("/api/races/", {"daily": day.isoformat(), "variant": "EH1-N"}),
            409,
            "secret_deal",
        )
        assert "fresh secret deal" in error["message"], error
        assert "past day's deal is public" in error["message"], error
    assert not Race.objects.filter(deal=past.deal).exists()
    daily_deal_get(date=yesterday, variant="SH1-C4")
    create(host, {"daily": yesterday.isoformat(), "variant": "SH1-C4"})

    # A room the API opened on it before the refusal (made so: the refusal off).
    with monkeypatch.context() as before:
        before.setattr(services, "_refuse_past_daily", lambda game: None)
        legacy = create(host, {"daily": yesterday.isoformat(), "variant": "EH1-N"})["id"]
    post(other, legacy, "join")
    assert_error(host.send(f"/api/races/{legacy}/start/"), 409, "secret_deal")
    assert get(host, legacy)["status"] == "open"
    assert not Attempt.objects.filter(deal=past.deal).exists()


@pytest.mark.django_db
def test_a_host_who_leaves_an_open_room_hands_it_on(make_player, anon):
    host, other = make_player(), make_player()
    slug = create(host, {"code": WIN_CODE})["id"]
    post(other, slug, "join")
    post(host, slug, "leave")
    race = get(anon, slug)
    assert race["host"] == other.username and [r["player"] for r in race["racers"]] == [
        other.username
    ]
    post(other, slug, "leave")
    assert get(anon, slug)["status"] == "finished"


def test_standings_share_equal_places():
    def racer(pk: int, status: str, elapsed: int | None, home: int, *at: int) -> Racer:
        """``at``: when ``home`` was reached (ms), and the moves (5 unless said)."""
        reached, moves = (*at, 5)[:2]
        return Racer(
            pk=pk,
            status=status,
            elapsed_ms=elapsed,
            progress={"home": [home], "uncovered": 0, "moves": moves, "home_ms": reached},
        )

    from races.selectors import standings

    racers = [
        racer(1, "resigned", 9000, 10, 4000),
        racer(2, "won", 5000, 52, 5000),
        racer(3, "won", 5000, 52, 5000),
        racer(4, "resigned", 9000, 10, 4000),
        racer(5, "left", 100, 0, 0, 0),
        racer(6, "left", 8000, 12, 7000),
        racer(7, "won", 7000, 52, 7000),
        racer(8, "resigned", 1000, 10, 900),  # stopped first, and reached 10 first
        racer(9, "racing", None, 10, 4500),  # racing on: reached 10 after 1 and 4
    ]
    assert standings(racers) == {2: 1, 3: 1, 7: 3, 6: 4, 8: 5, 1: 6, 4: 6, 9: 8, 5: 9}


@pytest.mark.django_db(transaction=True)
def test_a_game_not_in_a_race_announces_nothing_to_the_races(player):
    """The action path of an ordinary game pays nothing for races: no signal
    (and, tests/games/test_store.py, no statement more)."""
    from games.signals import sealed_attempt_changed

    heard: list[int] = []

    def listen(sender: Any, *, attempt: Any, game: Any, **kwargs: Any) -> None:
        heard.append(attempt.pk)

    sealed_attempt_changed.connect(listen, dispatch_uid="tests.races.sealed")
    try:
        game = player.send("/api/games/", {"code": WIN_CODE}).json()
        assert act(player, game["id"], 0, FIRST).status_code == 200
        assert player.send(f"/api/games/{game['id']}/resign/").status_code == 200
    finally:
        sealed_attempt_changed.disconnect(dispatch_uid="tests.races.sealed")
    assert heard == []


@pytest.mark.django_db(transaction=True)
def test_guests_are_numbered_in_the_room_by_joining_order(make_player):
    """Issue 39: guests showed as ``guest-<hex>``; the race JSON numbers them (the
    pages say "Guest 2"), an account's ``guest`` null."""
    from tests.support.api import guest

    host = make_player()
    race = create(host, {"code": WIN_CODE})["id"]
    for joining in (guest(), guest()):
        post(joining, race, "join")
    racers = sorted(get(host, race)["racers"], key=lambda r: r["joined_at"])
    assert [(r["player"].startswith("guest-"), r["guest"]) for r in racers] == [
        (False, None),
        (True, 1),
        (True, 2),
    ]
