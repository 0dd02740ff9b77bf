"""Clubs and follows read (issue 29): a club by its slug, who is a member, whom
a player follows, a club as its viewer may see it, a player's part for their
export — the reads ``clubs.api`` and the leaderboard's filtered boards
(``leaderboard/circles.py``) use. Who sees what: ``services.py``."""

from __future__ import annotations

import re
from typing import Any

from accounts.models import User
from accounts.services import account_required
from kit.errors import Forbidden, NotFound

from .models import Club, Follow, Membership


def account_of(user: Any) -> User:
    """The signed-in account: a guest (or no one) has no clubs and follows no one."""
    return account_required(
        user, "Clubs and following are for signed-in accounts: sign up or sign in."
    )


def club_get(*, slug: Any) -> Club:
    if not isinstance(slug, str) or not re.fullmatch(r"[-a-zA-Z0-9_]{1,60}", slug):
        raise NotFound("no_club", "No such club.")
    club = Club.objects.select_related("owner").filter(slug=slug).first()
    if club is None:
        raise NotFound("no_club", f"No club {slug!r}.")
    return club


def is_member(club: Club, user: Any) -> bool:
    return (
        isinstance(user, User)
        and not user.is_guest
        and Membership.objects.filter(club=club, player=user).exists()
    )


def member_club(*, slug: Any, user: Any) -> Club:
    """The club ``slug`` if ``user`` is a member of it: its members, code and
    boards are for its members only (403 ``not_member``)."""
    club = club_get(slug=slug)
    if not is_member(club, user):
        raise Forbidden("not_member", "Only the club's members may see this.")
    return club


def follows(*, follower: User, followed: User) -> bool:
    return Follow.objects.filter(follower=follower, followed=followed).exists()


def followed_ids(*, user: User) -> list[int]:
    return list(Follow.objects.filter(follower=user).values_list("followed_id", flat=True))


def member_ids(*, club: Club) -> list[int]:
    return list(Membership.objects.filter(club=club).values_list("player_id", flat=True))


def clubs_of(*, user: User) -> list[Club]:
    return list(
        Club.objects.filter(memberships__player=user).select_related("owner").order_by("name")
    )


def club_json(club: Club, *, viewer: Any) -> dict[str, Any]:
    """The public part of a club to anyone; its members and code to its members."""
    member = is_member(club, viewer)
    data: dict[str, Any] = {
        "slug": club.slug,
        "name": club.name,
        "owner": club.owner.get_username(),
        "members_count": club.memberships.count(),
        "member": member,
        "is_owner": member and club.owner_id == viewer.pk,
        "members": None,
        "code": None,
    }
    if member:
        data["members"] = [
            {"player": m.player.get_username(), "joined": m.joined_at.date().isoformat()}
            for m in club.memberships.select_related("player").order_by("joined_at", "pk")
        ]
        data["code"] = club.code
        data["invite"] = f"/clubs/join/{club.code}/"
    else:
        data["invite"] = None
    return data


def player_export(*, user: User) -> dict[str, Any]:
    """The clubs section of the player's export: their clubs, whom they follow.
    Not the other members (their names are theirs), nor who follows them."""
    return {
        "clubs": [
            {
                "slug": m.club.slug,
                "name": m.club.name,
                "owner": m.club.owner_id == user.pk,
                "joined_at": m.joined_at.isoformat(),
            }
            for m in Membership.objects.filter(player=user).select_related("club").order_by("pk")
        ],
        "following": [
            {"player": f.followed.get_username(), "since": f.created_at.isoformat()}
            for f in Follow.objects.filter(follower=user).select_related("followed").order_by("pk")
        ],
    }
