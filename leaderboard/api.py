"""``/api/leaderboard/{date}/{variant}/`` and ``/api/players/{username}/``."""

from __future__ import annotations

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import parse_date
from config.errors import ApiError
from games.api import ERRORS
from games.engine import ALL_VARIANTS

from .selectors import leaderboard_for_day, player_record

ROW = inline_serializer(
    "LeaderboardRow",
    {
        "rank": serializers.IntegerField(),
        "player": serializers.CharField(),
        "won": serializers.BooleanField(),
        "score": serializers.IntegerField(),
        "ms": serializers.IntegerField(allow_null=True),
        "moves": serializers.IntegerField(),
        "status": serializers.CharField(),
        "verified": serializers.BooleanField(),
        "pending": serializers.BooleanField(),
        "replay": serializers.CharField(allow_null=True),
    },
)


class LeaderboardSerializer(serializers.Serializer):
    date = serializers.DateField()
    variant = serializers.CharField()
    page = serializers.IntegerField()
    page_size = serializers.IntegerField()
    count = serializers.IntegerField()
    pages = serializers.IntegerField()
    results = serializers.ListField(child=ROW)
    me = ROW.__class__(allow_null=True)
    replays_open = serializers.BooleanField(help_text="the rows' replays are open to the viewer")
    replays_closed_reason = serializers.CharField(
        allow_null=True, help_text="why not yet, in a sentence"
    )


class VariantRecord(serializers.Serializer):
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    win_rate = serializers.FloatField()
    best_ms = serializers.IntegerField(allow_null=True)
    best_score = serializers.IntegerField(allow_null=True)


class PlayerSerializer(serializers.Serializer):
    username = serializers.CharField()
    joined = serializers.DateField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    variants = serializers.DictField(child=VariantRecord())
    streak = inline_serializer(
        "Streak", {"current": serializers.IntegerField(), "longest": serializers.IntegerField()}
    )
    disqualified = serializers.IntegerField(help_text="results staff took off the board")
    disqualifications = inline_serializer(
        "Disqualification",
        {
            "date": serializers.DateField(),
            "variant": serializers.CharField(),
            "reason": serializers.CharField(),
        },
        many=True,
    )


def _page(request: Request) -> int:
    raw = request.query_params.get("page", "1")
    if not raw.isdigit() or not 1 <= int(raw) <= 1_000_000:
        raise ApiError(400, "bad_page", "'page' is a whole number from 1.")
    return int(raw)


class LeaderboardView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        parameters=[
            OpenApiParameter("date", OpenApiTypes.DATE, OpenApiParameter.PATH),
            OpenApiParameter("variant", str, OpenApiParameter.PATH, enum=ALL_VARIANTS),
            OpenApiParameter("page", int, required=False),
        ],
        responses={200: LeaderboardSerializer, **ERRORS},
        summary="A daily deal's ranking (RULES.md C11)",
    )
    def get(self, request: Request, date: str, variant: str) -> Response:
        return Response(
            leaderboard_for_day(
                date=parse_date(date), variant=variant, viewer=request.user, page=_page(request)
            )
        )


class PlayerView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(responses={200: PlayerSerializer, **ERRORS}, summary="A player's record")
    def get(self, request: Request, username: str) -> Response:
        return Response(player_record(username=username))
