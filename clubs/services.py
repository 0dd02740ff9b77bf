"""Clubs and follows (issue 29, deliverables 2 and 3): the services that change
them, each one transaction (the reads: ``selectors.py``).

Who sees what (docs/api.md, "Clubs and following"):

- A club's name, slug, owner and member count are public (anyone may look a
  club up by its slug, as a board shows player names to anyone).
- Its members, its invite code and its boards (the filtered leaderboards, the
  weekly standing, a player record's club ranks) are for its members only.
- The code joins anyone who sends it (rate-limited, so it cannot be guessed);
  the owner renews it, and removing a member renews it too: the removed player
  knew the old one, which then joins no one.
- Following is one way and needs no consent: it shows nothing that the public
  boards do not show. Whom a player follows is told to that player only; the
  followed player is not told.

Clubs and follows are for accounts (not guests). Caps: ``CLUB_OWN_MAX`` clubs
owned, ``CLUB_JOIN_MAX`` clubs belonged to (owned ones included),
``CLUB_MEMBERS_MAX`` members a club, ``FOLLOW_MAX`` players followed."""

from __future__ import annotations

import re
import secrets
import unicodedata
from typing import Any

from django.conf import settings
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils.text import slugify

from accounts.models import User
from accounts.names import username_skeleton
from kit.errors import Conflict, Forbidden, Invalid, NotFound

from .models import Club, Follow, Membership
from .selectors import account_of, club_get, is_member, member_club

NAME_MIN = 3
NAME_MAX = 40
_NAME = re.compile(r"[\w][\w .,'&+!?()-]*", re.UNICODE)
_CODE = re.compile(r"[A-Za-z0-9_-]{8,32}")


def _new_code() -> str:
    return secrets.token_urlsafe(12)  # 96 bits: 16 characters


def club_name_check(name: Any) -> str:
    """``name`` tidied (spaces collapsed), if a club may take it; else why not."""
    if not isinstance(name, str):
        raise Invalid("bad_club_name", "A club's name is a string.")
    name = " ".join(unicodedata.normalize("NFC", name).split())
    if not NAME_MIN <= len(name) <= NAME_MAX:
        raise Invalid("bad_club_name", f"A club's name has {NAME_MIN} to {NAME_MAX} characters.")
    if not _NAME.fullmatch(name):
        raise Invalid(
            "bad_club_name",
            "A club's name starts with a letter or digit and holds letters, digits, spaces"
            " and . , ' & + ! ? ( ) - only.",
        )
    return name


def _skeletons(name: str) -> tuple[str, str]:
    """What ``name`` looks like in lower case (unique), and as written."""
    compact = name.replace(" ", "")
    return username_skeleton(compact.casefold()), username_skeleton(compact)


def _refuse_taken(name: str, skeletons: tuple[str, str]) -> None:
    alike = Q(name_skeleton__in=skeletons) | Q(look_skeleton__in=skeletons)
    other = Club.objects.filter(alike).values_list("name", flat=True).first()
    if other is None:
        return
    if other.lower() == name.lower():
        raise Conflict("club_name_taken", f"The club name {name!r} is taken.")
    raise Conflict(
        "club_name_taken",
        f"{name!r} looks like the existing club \u201c{other}\u201d: choose another name.",
        params={"existing": other},
    )


def _slug_for(name: str) -> str:
    base = slugify(name)[:50].strip("-") or "club"
    slug, n = base, 1
    while Club.objects.filter(slug=slug).exists():
        n += 1
        slug = f"{base}-{n}"
    return slug


def _lock(user: User) -> User:
    """The player's row locked: their caps are counted one change at a time."""
    return User.objects.select_for_update().get(pk=user.pk)


def club_create(*, user: Any, name: Any) -> Club:
    owner = account_of(user)
    name = club_name_check(name)
    skeletons = _skeletons(name)
    _refuse_taken(name, skeletons)
    try:
        with transaction.atomic():
            _lock(owner)
            if Club.objects.filter(owner=owner).count() >= settings.CLUB_OWN_MAX:
                raise Conflict(
                    "too_many_clubs_owned",
                    f"You own {settings.CLUB_OWN_MAX} clubs already, the most a player may own.",
                )
            _check_join_cap(owner)
            club = Club.objects.create(
                name=name,
                name_skeleton=skeletons[0],
                look_skeleton=skeletons[1],
                slug=_slug_for(name),
                owner=owner,
                code=_new_code(),
            )
            Membership.objects.create(club=club, player=owner)
            return club
    except IntegrityError:  # a club made at once took the name (or the slug)
        _refuse_taken(name, skeletons)
        raise Conflict("club_name_taken", "That name was taken just now: try again.") from None


def _check_join_cap(player: User) -> None:
    if Membership.objects.filter(player=player).count() >= settings.CLUB_JOIN_MAX:
        raise Conflict(
            "too_many_clubs",
            f"You are in {settings.CLUB_JOIN_MAX} clubs already, the most a player may be in:"
            " leave one first.",
        )


def _owned(slug: Any, user: Any) -> tuple[Club, User]:
    owner = account_of(user)
    club = club_get(slug=slug)
    if club.owner_id != owner.pk:
        if is_member(club, owner):
            raise Forbidden("not_owner", "Only the club's owner may do this.")
        raise Forbidden("not_member", "Only the club's members may see this.")
    return club, owner


def club_join(*, user: Any, code: Any) -> Club:
    """Join the club whose invite code is ``code``. A wrong or old code: 404
    ``bad_code`` (the same answer whether or not such a club ever was)."""
    player = account_of(user)
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        raise Invalid("bad_code", "An invite code is 8 to 32 letters, digits, - and _.")
    with transaction.atomic():
        club = Club.objects.select_for_update().filter(code=code).first()
        if club is None:
            raise NotFound("bad_code", "No club has this invite code (it may have been renewed).")
        if Membership.objects.filter(club=club, player=player).exists():
            return club  # already in: nothing changes
        _lock(player)
        _check_join_cap(player)
        if Membership.objects.filter(club=club).count() >= settings.CLUB_MEMBERS_MAX:
            raise Conflict(
                "club_full",
                f"This club has {settings.CLUB_MEMBERS_MAX} members, the most a club may have.",
            )
        Membership.objects.create(club=club, player=player)
    return club


def club_leave(*, user: Any, slug: Any) -> None:
    player = account_of(user)
    club = member_club(slug=slug, user=player)
    if club.owner_id == player.pk:
        raise Conflict(
            "owner_cannot_leave",
            "The owner cannot leave the club: hand it over to a member or delete it.",
        )
    Membership.objects.filter(club=club, player=player).delete()


def _member_named(club: Club, username: Any) -> User:
    if not isinstance(username, str) or not username or "\x00" in username:
        raise Invalid("bad_player", "'player' is a member's name.")
    member = User.objects.filter(
        username__iexact=username, club_memberships__club=club, is_guest=False
    ).first()
    if member is None:
        raise NotFound("not_a_member", f"{username[:40]!r} is not a member of this club.")
    return member


def member_remove(*, user: Any, slug: Any, username: Any) -> Club:
    """The owner removes a member; the invite code is renewed (the removed player
    knew it)."""
    with transaction.atomic():
        club, owner = _owned(slug, user)
        member = _member_named(club, username)
        if member.pk == owner.pk:
            raise Conflict("owner_cannot_leave", "The owner cannot remove themselves.")
        Membership.objects.filter(club=club, player=member).delete()
        club.code = _new_code()
        club.save(update_fields=["code"])
    return club


def owner_hand_over(*, user: Any, slug: Any, username: Any) -> Club:
    with transaction.atomic():
        club, owner = _owned(slug, user)
        member = _member_named(club, username)
        if member.pk == owner.pk:
            return club
        _lock(member)
        if Club.objects.filter(owner=member).count() >= settings.CLUB_OWN_MAX:
            raise Conflict(
                "too_many_clubs_owned",
                f"{member.username} owns {settings.CLUB_OWN_MAX} clubs already.",
            )
        club.owner = member
        club.save(update_fields=["owner"])
    return club


def code_renew(*, user: Any, slug: Any) -> Club:
    club, _owner = _owned(slug, user)
    club.code = _new_code()
    club.save(update_fields=["code"])
    return club


def club_delete(*, user: Any, slug: Any) -> None:
    club, _owner = _owned(slug, user)
    club.delete()


# --- following ---------------------------------------------------------------------


def _player_named(username: Any) -> User:
    if not isinstance(username, str) or "\x00" in username:
        raise NotFound("not_found", "No such player.")
    other = User.objects.filter(username__iexact=username, is_guest=False, is_active=True).first()
    if other is None:
        raise NotFound("not_found", f"No player {username[:40]!r}.")
    return other


def follow(*, user: Any, username: Any) -> User:
    me = account_of(user)
    other = _player_named(username)
    if other.pk == me.pk:
        raise Invalid("follow_self", "You cannot follow yourself.")
    with transaction.atomic():
        _lock(me)
        if Follow.objects.filter(follower=me, followed=other).exists():
            return other
        if Follow.objects.filter(follower=me).count() >= settings.FOLLOW_MAX:
            raise Conflict(
                "too_many_follows",
                f"You follow {settings.FOLLOW_MAX} players, the most one may follow.",
            )
        Follow.objects.create(follower=me, followed=other)
    return other


def unfollow(*, user: Any, username: Any) -> None:
    me = account_of(user)
    other = _player_named(username)
    Follow.objects.filter(follower=me, followed=other).delete()


# --- privacy (issue 28) -------------------------------------------------------------


def account_forget(*, user: User) -> None:
    """A deleted account: its follows (both ways) and memberships go; a club it
    owned passes to its longest-standing other member, or is deleted if none."""
    with transaction.atomic():
        Follow.objects.filter(follower=user).delete()
        Follow.objects.filter(followed=user).delete()
        for club in Club.objects.select_for_update().filter(owner=user):
            heir = (
                Membership.objects.filter(club=club)
                .exclude(player=user)
                .order_by("joined_at", "pk")
                .first()
            )
            if heir is None:
                club.delete()
            else:
                club.owner_id = heir.player_id
                club.code = _new_code()
                club.save(update_fields=["owner", "code"])
        Membership.objects.filter(player=user).delete()
