"""Clubs and following through the HTTP API (issue 29): every service and its
refusals, the boards filtered to a club or to those one follows, the weekly
standing, the result card's circles and a player record's club ranks."""

from __future__ import annotations

from typing import Any

import pytest
from django.test import override_settings

from clubs.models import Club, Follow, Membership
from tests.support.api import Client, assert_error, requires_postgres, run_at_once, throttle_rates
from tests.support.results import daily_of, finished, user_of


def make_club(client: Any, name: str = "Harp Heroes") -> dict[str, Any]:
    response = client.send("/api/clubs/", {"name": name})
    assert response.status_code == 201, response.content
    return response.json()


def join(client: Any, code: str) -> Any:
    return client.send("/api/clubs/join/", {"code": code})


def club_with_member(make_player: Any) -> tuple[Client, Client, dict[str, Any]]:
    """A club its owner made and another player joined: owner, member, club."""
    owner, member = make_player(), make_player()
    club = make_club(owner)
    joined = join(member, club["code"])
    assert joined.status_code == 200, joined.content
    return owner, member, club


def board(client: Any, daily: Any, **query: Any) -> Any:
    return client.get(f"/api/leaderboard/{daily.date.isoformat()}/{daily.variant}/", query)


# --- clubs ------------------------------------------------------------------------------


def test_create_gives_a_slug_an_unguessable_code_and_the_owner_as_member(player):
    club = make_club(player, "  Harp   Heroes ")
    assert club["name"] == "Harp Heroes" and club["slug"] == "harp-heroes"
    assert club["owner"] == player.username and club["is_owner"] and club["member"]
    assert len(club["code"]) >= 16 and club["invite"] == f"/clubs/join/{club['code']}/"
    assert [m["player"] for m in club["members"]] == [player.username]
    listed = player.get("/api/clubs/").json()["clubs"]
    assert [c["slug"] for c in listed] == ["harp-heroes"]


@pytest.mark.parametrize(
    "body",
    [
        {},
        {"name": 3},
        {"name": "ab"},
        {"name": "x" * 41},
        {"name": "<b>bold</b>"},
        {"name": "ok name", "extra": 1},
        ["name"],
    ],
)
def test_bad_names_are_400s_naming_what_is_wrong(player, body):
    response = player.send("/api/clubs/", body)
    assert_error(response, 400)
    assert not Club.objects.exists()


@pytest.mark.parametrize(
    "other", ["harp heroes", "HARP HEROES", "Harp  Heroes", "Нarp Heroes", "HarpHeroes"]
)
def test_names_are_unique_whatever_their_case_and_look(make_player, other):
    make_club(make_player(), "Harp Heroes")
    error = assert_error(make_player().send("/api/clubs/", {"name": other}), 409, "club_name_taken")
    assert "Harp Heroes" in error["message"] or "taken" in error["message"]


def test_two_clubs_with_one_slug_base_get_distinct_slugs(make_player):
    one = make_club(make_player(), "Ace!")
    two = make_club(make_player(), "Ace?")
    assert one["slug"] == "ace" and two["slug"] == "ace-2"


def test_anonymous_and_guests_have_no_clubs(anon):
    assert_error(anon.send("/api/clubs/", {"name": "Nope club"}), (401, 403))
    guest = Client()
    assert guest.send("/api/auth/guest/").status_code == 201
    assert_error(guest.send("/api/clubs/", {"name": "Nope club"}), 403, "account_required")
    assert_error(guest.send("/api/clubs/join/", {"code": "A" * 16}), 403, "account_required")


def test_join_by_code_leave_and_rejoin(make_player):
    owner, member = make_player(), make_player()
    club = make_club(owner)
    joined = join(member, club["code"])
    assert joined.status_code == 200, joined.content
    assert joined.json()["member"] and joined.json()["members_count"] == 2
    assert join(member, club["code"]).status_code == 200  # twice: nothing changes
    assert Membership.objects.filter(club__slug=club["slug"]).count() == 2
    assert member.post(f"/api/clubs/{club['slug']}/leave/").status_code == 204
    assert_error(member.post(f"/api/clubs/{club['slug']}/leave/"), 403, "not_member")
    assert join(member, club["code"]).status_code == 200


@pytest.mark.parametrize("code", ["", "short", "x" * 40, "has space here!", 12345, None])
def test_malformed_codes_are_400(player, code):
    assert_error(join(player, code), 400)


def test_a_wrong_code_is_404(player):
    assert_error(join(player, "A" * 16), 404, "bad_code")


def test_the_owner_cannot_leave_but_hands_over(make_player):
    owner, member, club = club_with_member(make_player)
    slug = club["slug"]
    assert_error(owner.post(f"/api/clubs/{slug}/leave/"), 409, "owner_cannot_leave")
    assert_error(
        member.send(f"/api/clubs/{slug}/owner/", {"player": owner.username}), 403, "not_owner"
    )
    assert_error(
        owner.send(f"/api/clubs/{slug}/owner/", {"player": "nobody-here"}), 404, "not_a_member"
    )
    assert_error(owner.send(f"/api/clubs/{slug}/owner/", {"player": 5}), 400)
    handed = owner.send(f"/api/clubs/{slug}/owner/", {"player": member.username})
    assert handed.status_code == 200 and handed.json()["owner"] == member.username
    assert owner.post(f"/api/clubs/{slug}/leave/").status_code == 204


def test_renewing_the_code_invalidates_the_old_one(make_player):
    owner, late = make_player(), make_player()
    club = make_club(owner)
    renewed = owner.post(f"/api/clubs/{club['slug']}/code/")
    assert renewed.status_code == 200 and renewed.json()["code"] != club["code"]
    assert_error(join(late, club["code"]), 404, "bad_code")
    assert join(late, renewed.json()["code"]).status_code == 200
    assert_error(late.post(f"/api/clubs/{club['slug']}/code/"), 403, "not_owner")


def test_remove_a_member_renews_the_code(make_player):
    owner, member, club = club_with_member(make_player)
    slug = club["slug"]
    assert_error(member.delete(f"/api/clubs/{slug}/members/{owner.username}/"), 403, "not_owner")
    assert_error(owner.delete(f"/api/clubs/{slug}/members/{owner.username}/"), 409)
    removed = owner.delete(f"/api/clubs/{slug}/members/{member.username}/")
    assert removed.status_code == 200
    assert removed.json()["code"] != club["code"] and removed.json()["members_count"] == 1
    assert_error(join(member, club["code"]), 404, "bad_code")
    assert_error(owner.delete(f"/api/clubs/{slug}/members/{member.username}/"), 404, "not_a_member")


def test_delete_a_club(make_player):
    owner, member, club = club_with_member(make_player)
    assert_error(member.delete(f"/api/clubs/{club['slug']}/"), 403, "not_owner")
    assert owner.delete(f"/api/clubs/{club['slug']}/").status_code == 204
    assert not Club.objects.exists() and not Membership.objects.exists()
    assert_error(owner.get(f"/api/clubs/{club['slug']}/"), 404, "no_club")


@override_settings(CLUB_MEMBERS_MAX=2)
def test_a_full_club_refuses(make_player):
    owner, second, third = make_player(), make_player(), make_player()
    club = make_club(owner)
    assert join(second, club["code"]).status_code == 200
    assert_error(join(third, club["code"]), 409, "club_full")


@override_settings(CLUB_OWN_MAX=1, CLUB_JOIN_MAX=2)
def test_caps_on_clubs_owned_and_joined(make_player):
    player, a, b = make_player(), make_player(), make_player()
    make_club(player, "First club")
    assert_error(player.send("/api/clubs/", {"name": "Second club"}), 409, "too_many_clubs_owned")
    ca, cb = make_club(a, "Club of a"), make_club(b, "Club of b")
    assert join(player, ca["code"]).status_code == 200
    assert_error(join(player, cb["code"]), 409, "too_many_clubs")


def test_joins_are_rate_limited(player, settings):
    throttle_rates(settings, **{"club-joins": "3/hour"})
    for _ in range(3):
        assert_error(join(player, "B" * 16), 404, "bad_code")
    assert_error(join(player, "B" * 16), 429)


# --- following --------------------------------------------------------------------------


def test_follow_unfollow_and_list(make_player):
    me, other = make_player(), make_player()
    followed = me.post(f"/api/players/{other.username.upper()}/follow/")
    assert followed.status_code == 200 and followed.json() == {
        "player": other.username,
        "following": True,
    }
    assert me.post(f"/api/players/{other.username}/follow/").status_code == 200  # twice
    assert [f["player"] for f in me.get("/api/following/").json()["following"]] == [other.username]
    assert me.get(f"/api/players/{other.username}/").json()["following"] is True
    assert other.get(f"/api/players/{me.username}/").json()["following"] is False
    assert me.delete(f"/api/players/{other.username}/follow/").status_code == 200
    assert me.get("/api/following/").json()["following"] == []


def test_follow_refusals(make_player, anon):
    me = make_player()
    assert_error(me.post(f"/api/players/{me.username}/follow/"), 400, "follow_self")
    assert_error(me.post("/api/players/nobody-at-all/follow/"), 404, "not_found")
    assert_error(anon.post(f"/api/players/{me.username}/follow/"), (401, 403))
    assert_error(anon.get("/api/following/"), (401, 403))
    assert anon.get(f"/api/players/{me.username}/").json()["following"] is None


@override_settings(FOLLOW_MAX=1)
def test_follow_cap(make_player):
    me, a, b = make_player(), make_player(), make_player()
    assert me.post(f"/api/players/{a.username}/follow/").status_code == 200
    assert_error(me.post(f"/api/players/{b.username}/follow/"), 409, "too_many_follows")


# --- the filtered boards ------------------------------------------------------------------


@pytest.fixture
def day(make_player):
    """Five players on today's SH1-C4 board; a club of three of them; one follow."""
    players = [make_player() for _ in range(5)]
    daily = daily_of()
    for index, client in enumerate(players):  # scores 500, 400, …: board order = index
        finished(user_of(client), daily, score=500 - 100 * index)
    club = make_club(players[1], "Board club")
    for client in (players[3], players[4]):
        join(client, club["code"])
    players[4].post(f"/api/players/{players[0].username}/follow/")
    return players, daily, club


def test_the_club_board_ranks_among_members_with_global_ranks(day):
    players, daily, club = day
    data = board(players[3], daily, club=club["slug"]).json()
    assert data["filter"] == {"club": club["slug"], "following": False}
    rows = [(r["player"], r["rank"], r["global_rank"]) for r in data["results"]]
    assert rows == [
        (players[1].username, 1, 2),
        (players[3].username, 2, 4),
        (players[4].username, 3, 5),
    ]
    assert data["count"] == 3 and data["me"]["rank"] == 2 and data["me"]["global_rank"] == 4
    public = board(players[3], daily).json()
    public_rows = {r["player"]: r for r in public["results"]}
    for row in data["results"]:  # the same row as the public board's, but for the ranks
        same = {k: v for k, v in row.items() if k not in ("rank", "global_rank")}
        assert same == {k: v for k, v in public_rows[row["player"]].items() if k != "rank"}
        assert public_rows[row["player"]]["rank"] == row["global_rank"]


def test_the_following_board_holds_those_followed_and_me(day):
    players, daily, _club = day
    data = board(players[4], daily, following=1).json()
    assert [(r["player"], r["rank"], r["global_rank"]) for r in data["results"]] == [
        (players[0].username, 1, 1),
        (players[4].username, 2, 5),
    ]
    assert data["filter"] == {"club": None, "following": True}


def test_filtered_board_refusals(day, anon):
    players, daily, club = day
    assert_error(board(players[0], daily, club=club["slug"]), 403, "not_member")
    assert_error(board(anon, daily, club=club["slug"]), 403, "not_member")
    assert_error(board(anon, daily, following=1), (401, 403))
    assert_error(board(players[1], daily, following="yes"), 400, "bad_following")
    assert_error(board(players[1], daily, club=club["slug"], following=1), 400, "bad_filter")
    assert_error(board(players[1], daily, club="no-such-club"), 404, "no_club")
    assert_error(board(players[1], daily, club="a\x00b"), 404)
    assert_error(board(players[1], daily, club=club["slug"], page=2), 404, "no_page")


def test_circles_rank_me_among_followed_and_my_clubs(day):
    players, daily, club = day
    response = players[4].get(f"/api/leaderboard/{daily.date}/{daily.variant}/circles/")
    assert response.status_code == 200, response.content
    data = response.json()
    assert data["following"] == {"rank": 2, "count": 2}
    assert data["clubs"] == [{"slug": club["slug"], "name": "Board club", "rank": 3, "count": 3}]
    assert (
        players[0]
        .get(f"/api/leaderboard/{daily.date}/{daily.variant}/circles/")
        .json()["following"]
        is None
    )


def test_the_week_standing_sums_points_by_rank_among_members(day):
    players, daily, club = day
    response = players[1].get(f"/api/clubs/{club['slug']}/week/")
    assert response.status_code == 200, response.content
    data = response.json()
    iso = daily.date.isocalendar()
    assert data["week"] == f"{iso[0]:04d}-W{iso[1]:02d}" and data["next"] is None
    points = [(e["player"], e["points"], e["rank"]) for e in data["standing"]]
    assert points == [
        (players[1].username, 3, 1),
        (players[3].username, 2, 2),
        (players[4].username, 1, 3),
    ]
    past = players[1].get(f"/api/clubs/{club['slug']}/week/", {"week": data["previous"]}).json()
    assert all(e["points"] == 0 for e in past["standing"])
    assert_error(players[0].get(f"/api/clubs/{club['slug']}/week/"), 403, "not_member")
    for bad in ("2026-49", "2026-W60", "W49", "x" * 30):
        assert_error(
            players[1].get(f"/api/clubs/{club['slug']}/week/", {"week": bad}), 400, "bad_week"
        )
    assert_error(players[1].get(f"/api/clubs/{club['slug']}/week/", {"week": "2999-W01"}), 404)


def test_the_player_record_with_a_club(day):
    players, daily, club = day
    record = players[1].get(f"/api/players/{players[3].username}/", {"club": club["slug"]}).json()
    assert record["club"]["results"] == [
        {"date": daily.date.isoformat(), "variant": "SH1-C4", "rank": 2, "count": 3}
    ]
    assert "played" in record and "streak" in record  # every existing key kept
    assert_error(
        players[0].get(f"/api/players/{players[3].username}/", {"club": club["slug"]}), 403
    )
    assert_error(
        players[1].get(f"/api/players/{players[0].username}/", {"club": club["slug"]}),
        404,
        "not_a_member",
    )


# --- privacy ----------------------------------------------------------------------------


def test_export_holds_clubs_and_follows_and_deletion_removes_them(make_player):
    owner, member = make_player(password="correct horse battery"), make_player()
    club = make_club(owner)
    join(member, club["code"])
    owner.post(f"/api/players/{member.username}/follow/")
    member.post(f"/api/players/{owner.username}/follow/")
    export = owner.get("/api/auth/export/").json()
    assert export["clubs"][0]["slug"] == club["slug"] and export["clubs"][0]["owner"] is True
    assert export["following"][0]["player"] == member.username
    response = owner.generic(
        "DELETE", "/api/auth/account/", '{"password": "correct horse battery"}', "application/json"
    )
    assert response.status_code in (200, 204), response.content
    assert not Follow.objects.exists()
    remaining = Club.objects.get()
    assert remaining.owner.username == member.username  # handed over to the next member
    assert Membership.objects.count() == 1


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_joins_at_once_never_overfill_a_club(make_player):
    owner = make_player()
    club = make_club(owner, "Crowded club")
    joiners = [make_player() for _ in range(5)]
    with override_settings(CLUB_MEMBERS_MAX=3):
        results = run_at_once([lambda c=c: join(c, club["code"]) for c in joiners])
    statuses = sorted(status for status, _ in results)
    assert statuses == [200, 200, 409, 409, 409], results
    assert Membership.objects.filter(club__slug=club["slug"]).count() == 3


@requires_postgres
@pytest.mark.django_db(transaction=True)
def test_one_name_made_at_once_makes_one_club(make_player):
    makers = [make_player() for _ in range(4)]
    names = ["Twin Club", "twin club", "TWIN CLUB", "Twin  Club"]
    results = run_at_once(
        [
            lambda c=c, n=n: c.send("/api/clubs/", {"name": n})
            for c, n in zip(makers, names, strict=True)
        ]
    )
    assert sorted(status for status, _ in results) == [201, 409, 409, 409], results
    assert Club.objects.count() == 1


@pytest.mark.parametrize("other", ["Big Ideas", "big ideas", "Blg Ideas", "BlG lDEAS"])
def test_an_i_and_an_l_in_any_case_look_alike(make_player, other):
    """Upper-case look-alikes are mapped before case is folded (accounts/names.py):
    a name is checked as written and in lower case."""
    make_club(make_player(), "BIG IDEAS")
    assert_error(make_player().send("/api/clubs/", {"name": other}), 409, "club_name_taken")
