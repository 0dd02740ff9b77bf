"""``/api/clubs/…`` and ``/api/following/``, ``/api/players/{username}/follow/``
(issue 29): clubs and following. The boards filtered to them are the
leaderboard's (``leaderboard/circles.py``)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import ERRORS, StrictCharField, StrictSerializer, client_address, rate_limit

from . import selectors, services
from .models import Follow


class ClubSerializer(serializers.Serializer):  # documentation of the answer
    slug = serializers.CharField()
    name = serializers.CharField()
    owner = serializers.CharField()
    members_count = serializers.IntegerField()
    member = serializers.BooleanField(help_text="the viewer is a member")
    is_owner = serializers.BooleanField()
    members = inline_serializer(
        "ClubMember",
        {"player": serializers.CharField(), "joined": serializers.DateField()},
        many=True,
        allow_null=True,
        help_text="members only (null to others)",
    )
    code = serializers.CharField(allow_null=True, help_text="the invite code: members only")
    invite = serializers.CharField(allow_null=True, help_text="the invite link: members only")


class ClubsSerializer(serializers.Serializer):
    clubs = ClubSerializer(many=True)


class NameSerializer(StrictSerializer):
    name = StrictCharField(max_length=200, trim_whitespace=False)


class CodeSerializer(StrictSerializer):
    code = StrictCharField(max_length=200, trim_whitespace=False)


class PlayerSerializer(StrictSerializer):
    player = StrictCharField(max_length=150, trim_whitespace=False)


def _valid(serializer_class: type[StrictSerializer], request: Request) -> dict:
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    return dict(data.validated_data)


class ClubsView(APIView):
    @extend_schema(
        responses={200: ClubsSerializer, **ERRORS}, summary="Your clubs", operation_id="clubs_list"
    )
    def get(self, request: Request) -> Response:
        user = selectors.account_of(request.user)
        return Response(
            {"clubs": [selectors.club_json(c, viewer=user) for c in selectors.clubs_of(user=user)]}
        )

    @extend_schema(
        request=NameSerializer, responses={201: ClubSerializer, **ERRORS}, summary="Make a club"
    )
    def post(self, request: Request) -> Response:
        club = services.club_create(user=request.user, **_valid(NameSerializer, request))
        return Response(selectors.club_json(club, viewer=request.user), status=201)


class JoinView(APIView):
    """Joining by code, counted per player and per address (``CLUB_JOIN_RATE``):
    codes cannot be guessed by trying them."""

    @extend_schema(
        request=CodeSerializer,
        responses={200: ClubSerializer, **ERRORS},
        summary="Join a club by its invite code",
    )
    def post(self, request: Request) -> Response:
        selectors.account_of(request.user)
        rate_limit("club-joins", f"user-{request.user.pk}")
        rate_limit("club-joins", client_address(request))
        club = services.club_join(user=request.user, **_valid(CodeSerializer, request))
        return Response(selectors.club_json(club, viewer=request.user))


class ClubView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        responses={200: ClubSerializer, **ERRORS},
        summary="A club: its name to anyone, its members and code to its members",
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(selectors.club_json(selectors.club_get(slug=slug), viewer=request.user))

    @extend_schema(responses={204: None, **ERRORS}, summary="Delete your club (its owner)")
    def delete(self, request: Request, slug: str) -> Response:
        services.club_delete(user=request.user, slug=slug)
        return Response(status=204)


class LeaveView(APIView):
    @extend_schema(request=None, responses={204: None, **ERRORS}, summary="Leave a club")
    def post(self, request: Request, slug: str) -> Response:
        services.club_leave(user=request.user, slug=slug)
        return Response(status=204)


class CodeView(APIView):
    @extend_schema(
        request=None,
        responses={200: ClubSerializer, **ERRORS},
        summary="Renew the invite code (its owner): the old one joins no one",
    )
    def post(self, request: Request, slug: str) -> Response:
        club = services.code_renew(user=request.user, slug=slug)
        return Response(selectors.club_json(club, viewer=request.user))


class MemberView(APIView):
    @extend_schema(
        responses={200: ClubSerializer, **ERRORS},
        summary="Remove a member (the owner); the invite code is renewed",
    )
    def delete(self, request: Request, slug: str, username: str) -> Response:
        club = services.member_remove(user=request.user, slug=slug, username=username)
        return Response(selectors.club_json(club, viewer=request.user))


class OwnerView(APIView):
    @extend_schema(
        request=PlayerSerializer,
        responses={200: ClubSerializer, **ERRORS},
        summary="Hand the club over to a member (the owner)",
    )
    def post(self, request: Request, slug: str) -> Response:
        player = _valid(PlayerSerializer, request)["player"]
        club = services.owner_hand_over(user=request.user, slug=slug, username=player)
        return Response(selectors.club_json(club, viewer=request.user))


FOLLOWING = inline_serializer(
    "Following",
    {
        "following": inline_serializer(
            "Followed",
            {"player": serializers.CharField(), "since": serializers.DateTimeField()},
            many=True,
        )
    },
)
FOLLOW = inline_serializer(
    "Follow", {"player": serializers.CharField(), "following": serializers.BooleanField()}
)


class FollowingView(APIView):
    @extend_schema(responses={200: FOLLOWING, **ERRORS}, summary="Whom you follow (yours only)")
    def get(self, request: Request) -> Response:
        user = selectors.account_of(request.user)
        rows = Follow.objects.filter(follower=user).select_related("followed")
        return Response(
            {
                "following": [
                    {"player": f.followed.get_username(), "since": f.created_at.isoformat()}
                    for f in rows.order_by("followed__username")
                ]
            }
        )


class FollowView(APIView):
    @extend_schema(request=None, responses={200: FOLLOW, **ERRORS}, summary="Follow a player")
    def post(self, request: Request, username: str) -> Response:
        other = services.follow(user=request.user, username=username)
        return Response({"player": other.get_username(), "following": True})

    @extend_schema(responses={200: FOLLOW, **ERRORS}, summary="Stop following a player")
    def delete(self, request: Request, username: str) -> Response:
        services.unfollow(user=request.user, username=username)
        return Response({"player": username, "following": False})
