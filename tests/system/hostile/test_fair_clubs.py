"""Issue 29, deliverables 2 and 3, played as an attacker: clubs and following.

- A filtered board (``?club=``, ``?following=1``), the result card's circles,
  a club's weekly standing and a player record's club ranks, asked while
  today's daily runs, hold nothing the public board does not: the same rows,
  field for field, but for the rank in the circle (and the global rank, which
  is the public board's rank); no card, no byte of the daily's code or key; the
  replay links the public board gives the same viewer, and no others.
- A non-member (another account, a second account, an anonymous visitor) reads
  no club's code or members from any answer, and none of its boards.
- Codes: a wrong one, an old one after renewal, the one a removed member knew,
  all refused; a full club refuses; guessing codes meets the rate limit, per
  player and per address (several accounts from one address add up).
- Only the owner renews, removes, hands over and deletes."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.test import override_settings

from clubs.models import Club, Membership
from tests.support.api import assert_error, throttle_rates, win_daily
from tests.support.hidden import Wire, check_cardless, prepared

BOARD = "/api/leaderboard/{date}/{variant}/"


@pytest.fixture
def running(db):
    return prepared("SH1-C4")


def _club(wire: Wire, owner: Any, name: str) -> dict[str, Any]:
    response = wire.http("create", owner.send("/api/clubs/", {"name": name}))
    assert response.status_code == 201, response.content
    return response.json()


def test_filtered_boards_hold_nothing_the_public_board_does_not(running, make_player, anon, clock):
    wire = Wire()
    winner, loser, scout, outsider = (make_player() for _ in range(4))
    win_daily(winner, "SH1-C4")  # a winner: replays of today open to them
    for client in (loser, scout):  # resigned at once: replays stay closed to them
        started = wire.http("start", client.send("/api/games/", {"daily": "SH1-C4"})).json()
        clock.advance(2)
        wire.http("resign", client.send(f"/api/games/{started['id']}/resign/"))
    club = _club(wire, winner, "Running Club")
    for client in (loser, scout):
        wire.http("join", client.send("/api/clubs/join/", {"code": club["code"]}))
    scout.post(f"/api/players/{winner.username}/follow/")
    scout.post(f"/api/players/{loser.username}/follow/")
    path = BOARD.format(date=running.date.isoformat(), variant=running.variant)

    for who, client in (("winner", winner), ("loser", loser), ("scout", scout)):
        public = wire.http(f"{who} public", client.get(path)).json()
        by_player = {row["player"]: row for row in public["results"]}
        for query in ({"club": club["slug"]}, {"following": "1"}):
            response = wire.http(f"{who} {query}", client.get(path, query))
            if "following" in query and who != "scout":
                assert response.status_code == 200  # they follow no one: themselves only
            body = response.json()
            check_cardless(body, f"{who} {query}")
            assert set(body) == set(public) | {"filter"}, body.keys()
            assert body["replays_open"] == public["replays_open"]
            for row in body["results"] + ([body["me"]] if body["me"] else []):
                theirs = by_player[row["player"]]
                assert row["global_rank"] == theirs["rank"]
                assert {k: v for k, v in row.items() if k not in ("rank", "global_rank")} == {
                    k: v for k, v in theirs.items() if k != "rank"
                }, (who, query, row)
        circles = wire.http(f"{who} circles", client.get(f"{path}circles/")).json()
        check_cardless(circles, f"{who} circles")
        week = wire.http(f"{who} week", client.get(f"/api/clubs/{club['slug']}/week/")).json()
        check_cardless(week, f"{who} week")
        record = client.get(f"/api/players/{winner.username}/", {"club": club["slug"]})
        check_cardless(wire.http(f"{who} record", record).json(), f"{who} record")
    # The losers' boards give no replay link of today: the public rule.
    for client in (loser, scout):
        body = client.get(path, {"club": club["slug"]}).json()
        assert all(row["replay"] is None for row in body["results"])
    # The outsider and anonymous: no club board, no standing, no club record.
    for who, client in (("outsider", outsider), ("anonymous", anon)):
        assert_error(wire.http(who, client.get(path, {"club": club["slug"]})), (401, 403))
        assert_error(wire.http(who, client.get(f"/api/clubs/{club['slug']}/week/")), (401, 403))
        record = client.get(f"/api/players/{winner.username}/", {"club": club["slug"]})
        assert_error(wire.http(who, record), (401, 403))
    assert_error(wire.http("anon following", anon.get(path, {"following": "1"})), (401, 403))
    assert_error(wire.http("anon circles", anon.get(f"{path}circles/")), (401, 403))
    wire.assert_never_named(running)


def test_non_members_read_no_code_and_no_members(make_player, anon):
    owner, member, outsider = make_player(), make_player(), make_player()
    outsider_wire = Wire()
    club = _club(Wire(), owner, "Secret Society")
    member.send("/api/clubs/join/", {"code": club["code"]})
    slug = club["slug"]
    for who, client in (("outsider", outsider), ("anonymous", anon)):
        seen = outsider_wire.http(who, client.get(f"/api/clubs/{slug}/")).json()
        assert seen["name"] == "Secret Society" and seen["members_count"] == 2
        assert seen["member"] is False
        assert seen["code"] is None and seen["members"] is None and seen["invite"] is None
        for path in (
            f"/api/clubs/{slug}/week/",
            f"/api/clubs/{slug}/code/",
            f"/api/clubs/{slug}/leave/",
            f"/api/clubs/{slug}/members/{member.username}/",
        ):
            response = client.post(path) if path.endswith(("code/", "leave/")) else client.get(path)
            assert_error(outsider_wire.http(f"{who} {path}", response), (401, 403, 405))
        outsider_wire.http(f"{who} delete", client.delete(f"/api/clubs/{slug}/members/x/"))
        outsider_wire.http(
            f"{who} owner", client.send(f"/api/clubs/{slug}/owner/", {"player": who})
        )
        outsider_wire.http(f"{who} list", client.get("/api/clubs/"))
    for where, blob in outsider_wire.received:
        text = blob.decode()
        assert club["code"] not in text, where
        assert member.username not in text, (where, text)  # the member list is the members'
    assert Club.objects.get().owner.username == owner.username
    assert Membership.objects.count() == 2


def test_codes_wrong_old_removed_and_full(make_player):
    owner, member, late = make_player(), make_player(), make_player()
    club = _club(Wire(), owner, "Door Club")
    slug, first = club["slug"], club["code"]
    assert member.send("/api/clubs/join/", {"code": first}).status_code == 200
    # A member (not the owner) cannot renew, remove, hand over or delete.
    assert_error(member.post(f"/api/clubs/{slug}/code/"), 403, "not_owner")
    assert_error(member.delete(f"/api/clubs/{slug}/members/{owner.username}/"), 403, "not_owner")
    assert_error(member.send(f"/api/clubs/{slug}/owner/", {"player": member.username}), 403)
    assert_error(member.delete(f"/api/clubs/{slug}/"), 403, "not_owner")
    # Removed: the code they knew is renewed away, so they cannot come back with it.
    owner.delete(f"/api/clubs/{slug}/members/{member.username}/")
    assert_error(member.send("/api/clubs/join/", {"code": first}), 404, "bad_code")
    assert_error(member.get(f"/api/clubs/{slug}/week/"), 403, "not_member")
    # An old code after a renewal, and a wrong one, say the same.
    second = Club.objects.get().code
    third = owner.post(f"/api/clubs/{slug}/code/").json()["code"]
    for code in (first, second, "Z" * 16, third[:-1] + ("A" if third[-1] != "A" else "B")):
        error = assert_error(late.send("/api/clubs/join/", {"code": code}), 404, "bad_code")
        assert "Door Club" not in json.dumps(error)
    with override_settings(CLUB_MEMBERS_MAX=2):
        assert late.send("/api/clubs/join/", {"code": third}).status_code == 200
        assert_error(member.send("/api/clubs/join/", {"code": third}), 409, "club_full")
    assert Membership.objects.filter(club__slug=slug).count() == 2


def test_guessing_codes_meets_the_limit_per_player_and_per_address(make_player, settings):
    throttle_rates(settings, **{"club-joins": "5/hour"})
    owner = make_player()
    club = _club(Wire(), owner, "Guarded Club")
    guessers = [make_player() for _ in range(3)]
    answers = []
    for attempt in range(9):  # three accounts, one address: they add up
        client = guessers[attempt % 3]
        answers.append(client.send("/api/clubs/join/", {"code": f"guess{attempt:011d}"}))
    codes = [r.status_code for r in answers]
    assert codes[:5] == [404] * 5 and set(codes[5:]) == {429}, codes
    # Even the right code is refused once over the limit: no way round it.
    assert_error(guessers[0].send("/api/clubs/join/", {"code": club["code"]}), 429)
    assert Membership.objects.count() == 1
