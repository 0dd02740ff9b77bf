"""The clubs' services called directly (issue 40: they were tested only through
their doors): each change in one transaction, each cap and refusal named, the
invite code renewed when a member who knew it goes, a deleted account's clubs
handed over; the reads (``clubs.selectors``) beside them."""

from __future__ import annotations

import pytest

from accounts.models import User
from clubs import selectors, services
from clubs.models import Club, Follow, Membership
from kit.errors import Conflict, Forbidden, Invalid, NotFound

pytestmark = pytest.mark.django_db


def account(name: str) -> User:
    return User.objects.create_user(name, password="x" * 12)


def refused(call, kind: type, code: str) -> None:
    with pytest.raises(kind) as caught:
        call()
    assert caught.value.code == code, caught.value


def test_a_club_is_made_owned_and_joined_by_its_code():
    owner, friend = account("owner"), account("friend")
    club = services.club_create(user=owner, name="Tuesday Harpists")
    assert club.owner == owner and selectors.member_ids(club=club) == [owner.pk]
    assert services.club_join(user=friend, code=club.code) == club
    assert services.club_join(user=friend, code=club.code) == club  # twice: nothing changes
    assert sorted(selectors.member_ids(club=club)) == sorted([owner.pk, friend.pk])
    assert selectors.member_club(slug=club.slug, user=friend) == club
    assert [c.pk for c in selectors.clubs_of(user=friend)] == [club.pk]
    seen = selectors.club_json(club, viewer=friend)
    assert seen["member"] and seen["code"] == club.code and len(seen["members"]) == 2
    stranger = selectors.club_json(club, viewer=account("stranger"))
    assert not stranger["member"] and stranger["code"] is None and stranger["members"] is None


def test_names_and_codes_are_checked():
    owner = account("owner")
    refused(lambda: services.club_create(user=owner, name="ab"), Invalid, "bad_club_name")
    services.club_create(user=owner, name="Night Owls")
    other = account("other")
    refused(
        lambda: services.club_create(user=other, name="night  owls"), Conflict, "club_name_taken"
    )
    refused(lambda: services.club_join(user=other, code="short"), Invalid, "bad_code")
    refused(lambda: services.club_join(user=other, code="A" * 16), NotFound, "bad_code")


def test_the_caps(settings):
    settings.CLUB_OWN_MAX, settings.CLUB_MEMBERS_MAX, settings.FOLLOW_MAX = 1, 2, 1
    owner, one, two = account("owner"), account("one"), account("two")
    club = services.club_create(user=owner, name="Small Club")
    refused(
        lambda: services.club_create(user=owner, name="Second Club"),
        Conflict,
        "too_many_clubs_owned",
    )
    services.club_join(user=one, code=club.code)
    refused(lambda: services.club_join(user=two, code=club.code), Conflict, "club_full")
    services.follow(user=one, username="two")
    refused(lambda: services.follow(user=one, username="owner"), Conflict, "too_many_follows")
    refused(lambda: services.follow(user=one, username="one"), Invalid, "follow_self")


def test_removing_a_member_renews_the_code_they_knew():
    owner, member = account("owner"), account("member")
    club = services.club_create(user=owner, name="Code Keepers")
    old = club.code
    services.club_join(user=member, code=old)
    refused(
        lambda: services.member_remove(user=member, slug=club.slug, username="owner"),
        Forbidden,
        "not_owner",
    )
    services.member_remove(user=owner, slug=club.slug, username="member")
    club.refresh_from_db()
    assert club.code != old and member.pk not in selectors.member_ids(club=club)
    refused(lambda: services.club_join(user=member, code=old), NotFound, "bad_code")


def test_the_owner_hands_over_and_cannot_just_leave():
    owner, heir = account("owner"), account("heir")
    club = services.club_create(user=owner, name="Handed Over")
    services.club_join(user=heir, code=club.code)
    refused(lambda: services.club_leave(user=owner, slug=club.slug), Conflict, "owner_cannot_leave")
    services.owner_hand_over(user=owner, slug=club.slug, username="heir")
    club.refresh_from_db()
    assert club.owner == heir
    services.club_leave(user=owner, slug=club.slug)
    assert selectors.member_ids(club=club) == [heir.pk]


def test_a_deleted_account_leaves_its_follows_and_hands_its_clubs_on():
    owner, heir, fan = account("owner"), account("heir"), account("fan")
    kept = services.club_create(user=owner, name="Kept Club")
    services.club_join(user=heir, code=kept.code)
    alone = services.club_create(user=owner, name="Alone Club")
    services.follow(user=fan, username="owner")
    services.follow(user=owner, username="fan")
    services.account_forget(user=owner)
    kept.refresh_from_db()
    assert kept.owner == heir and not Club.objects.filter(pk=alone.pk).exists()
    assert not Follow.objects.filter(follower=owner).exists()
    assert not Follow.objects.filter(followed=owner).exists()
    assert not Membership.objects.filter(player=owner).exists()


def test_guests_have_no_clubs():
    guest = User.objects.create_user("guest-1", password=None, is_guest=True)
    refused(
        lambda: services.club_create(user=guest, name="Guest Club"), Forbidden, "account_required"
    )
    refused(lambda: selectors.account_of(guest), Forbidden, "account_required")
