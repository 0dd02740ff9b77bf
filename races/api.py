"""``/api/races/…`` (docs/api.md, "Race rooms"). Views parse input, call one
service or selector, and render the result."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import (
    ERROR,
    StrictCharField,
    StrictIntegerField,
    StrictSerializer,
    parse_date,
    rate_limit,
)
from kit.http import ApiError

from .selectors import race_get, race_json, races_for
from .services import (
    MAX_CAPACITY,
    MIN_CAPACITY,
    race_create,
    race_invite,
    race_join,
    race_leave,
    race_rematch,
    race_start,
)

ERRORS = dict.fromkeys((400, 401, 403, 404, 409, 429), ERROR)


class CreateSerializer(StrictSerializer):
    """Exactly one of ``code``, ``random`` (a variant) or ``daily`` (a past day,
    with ``variant``); ``capacity`` optional. A game that hides cards (Easy Harp)
    is raced on a fresh secret key by ``random``; a ``code`` or a ``daily`` of it
    is refused (409 ``secret_deal``)."""

    code = StrictCharField(required=False, max_length=48)
    random = StrictCharField(required=False, max_length=16)
    daily = StrictCharField(required=False, max_length=10)
    variant = StrictCharField(required=False, max_length=16)
    capacity = StrictIntegerField(required=False, min_value=MIN_CAPACITY, max_value=MAX_CAPACITY)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len([k for k in ("code", "random", "daily") if k in attrs]) != 1:
            raise serializers.ValidationError(
                {"body": ["Send exactly one of 'code', 'random' or 'daily'."]}
            )
        if ("variant" in attrs) != ("daily" in attrs):
            raise serializers.ValidationError(
                {"variant": ["'variant' goes with 'daily', and 'daily' needs it."]}
            )
        return attrs


class InviteSerializer(StrictSerializer):
    username = StrictCharField(max_length=150)


class RacerSerializer(serializers.Serializer):  # documentation of race_json
    player = serializers.CharField()
    status = serializers.ChoiceField(["waiting", "racing", "won", "resigned", "left"])
    place = serializers.IntegerField(allow_null=True)
    progress = inline_serializer(
        "RaceProgress",
        {
            "home": serializers.ListField(child=serializers.IntegerField()),
            "uncovered": serializers.IntegerField(),
            "moves": serializers.IntegerField(),
            "elapsed_ms": serializers.IntegerField(),
            "home_ms": serializers.IntegerField(
                help_text="ms from the start when the cards home held were reached: among"
                " equal cards home, earlier places higher (0 with none home)"
            ),
        },
    )
    joined_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    attempt = serializers.IntegerField(allow_null=True, help_text="once the race is over")


class RaceSerializer(serializers.Serializer):  # documentation of race_json
    id = serializers.CharField()
    url = serializers.CharField()
    host = serializers.CharField()
    variant = serializers.CharField()
    variant_name = serializers.CharField()
    status = serializers.ChoiceField(["open", "running", "finished"])
    capacity = serializers.IntegerField()
    quick = serializers.BooleanField(help_text="a quick race: strangers matched by race rating")
    created_at = serializers.DateTimeField()
    starts_at = serializers.DateTimeField(allow_null=True)
    ends_at = serializers.DateTimeField(allow_null=True)
    code = serializers.CharField(
        allow_null=True,
        help_text="null until the start; for a game that hides cards (Easy Harp: a fresh"
        " secret key) until the end",
    )
    daily = serializers.DateField(
        allow_null=True, help_text="the past day raced, named when the code is"
    )
    racers = RacerSerializer(many=True)
    you = inline_serializer(
        "RaceYou",
        {
            "racer": serializers.BooleanField(),
            "host": serializers.BooleanField(),
            "attempt": serializers.IntegerField(allow_null=True),
        },
    )
    rematch = serializers.CharField(allow_null=True)
    version = serializers.IntegerField()


def _counted(request: Request) -> None:
    """Creating, joining and inviting are counted per player (``RACE_RATE``)."""
    rate_limit("races", f"user-{request.user.pk}")


class RacesView(APIView):
    @extend_schema(
        parameters=[OpenApiParameter("invited", bool, description="1: rooms you are invited to")],
        responses={200: RaceSerializer(many=True), **ERRORS},
        summary="Your race rooms (open or running), or those you are invited to",
    )
    def get(self, request: Request) -> Response:
        flag = request.query_params.get("invited", "0")
        if flag not in ("0", "1", "true", "false"):
            raise ApiError(400, "invalid", "invited: expected 1 or 0.")
        return Response(races_for(player=request.user, invited=flag in ("1", "true")))

    @extend_schema(
        request=CreateSerializer,
        responses={201: RaceSerializer, **ERRORS},
        examples=[
            OpenApiExample("a deal by code", {"code": "SH1-C4-AAAAAJ2"}, request_only=True),
            OpenApiExample("a random proven deal", {"random": "SH1-C2"}, request_only=True),
            OpenApiExample(
                "Easy Harp: a fresh secret deal, named when the race ends",
                {"random": "EH1-N"},
                request_only=True,
            ),
            OpenApiExample(
                "a past daily", {"daily": "2026-12-01", "variant": "SH1-C4"}, request_only=True
            ),
        ],
        summary="Open a race room (you are its host and first racer)",
    )
    def post(self, request: Request) -> Response:
        _counted(request)
        data = CreateSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        if "daily" in fields:
            fields["daily"] = parse_date(fields["daily"])
        race = race_create(host=request.user, **fields)
        return Response(race_json(race, viewer=request.user), status=201)


SLUG = [OpenApiParameter("race", OpenApiTypes.STR, OpenApiParameter.PATH)]


class RaceView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(parameters=SLUG, responses={200: RaceSerializer, **ERRORS})
    def get(self, request: Request, race: str) -> Response:
        return Response(race_json(race_get(slug=race), viewer=request.user))


class JoinView(APIView):
    @extend_schema(parameters=SLUG, request=None, responses={200: RaceSerializer, **ERRORS})
    def post(self, request: Request, race: str) -> Response:
        _counted(request)
        joined = race_join(slug=race, player=request.user)
        return Response(race_json(race_get(slug=joined.slug), viewer=request.user))


class LeaveView(APIView):
    @extend_schema(parameters=SLUG, request=None, responses={200: RaceSerializer, **ERRORS})
    def post(self, request: Request, race: str) -> Response:
        left = race_leave(slug=race, player=request.user)
        return Response(race_json(race_get(slug=left.slug), viewer=request.user))


class StartView(APIView):
    @extend_schema(parameters=SLUG, request=None, responses={200: RaceSerializer, **ERRORS})
    def post(self, request: Request, race: str) -> Response:
        started = race_start(slug=race, host=request.user)
        return Response(race_json(race_get(slug=started.slug), viewer=request.user))


class InviteView(APIView):
    @extend_schema(
        parameters=SLUG, request=InviteSerializer, responses={200: RaceSerializer, **ERRORS}
    )
    def post(self, request: Request, race: str) -> Response:
        _counted(request)
        data = InviteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        race_invite(slug=race, host=request.user, username=data.validated_data["username"])
        return Response(race_json(race_get(slug=race), viewer=request.user))


class RematchView(APIView):
    @extend_schema(parameters=SLUG, request=None, responses={201: RaceSerializer, **ERRORS})
    def post(self, request: Request, race: str) -> Response:
        _counted(request)
        new = race_rematch(slug=race, host=request.user)
        return Response(race_json(race_get(slug=new.slug), viewer=request.user), status=201)
