"""``/api/leaderboard/{date}/{variant}/``, ``/api/players/{username}/``, the
archive's calendars, ``/api/calendar/`` and ``/api/players/{username}/calendar/``,
the quick race queue, ``/api/races/quick/``, and where a practice of a past
daily would have ranked,
``/api/leaderboard/would-rank/{game id}/``; the table of predicted against
measured difficulty, ``/api/difficulty/``."""

from __future__ import annotations

import contextlib
import datetime as dt
import re

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from clubs.selectors import follows
from games.dailies import utc_today
from games.difficulty import difficulty_month
from games.engine import ALL_VARIANTS
from kit.api import (
    ERRORS,
    GameIdConverter,
    StrictCharField,
    StrictSerializer,
    parse_date,
    parse_month,
    rate_limit,
)
from kit.errors import NotFound
from kit.http import ApiError

from .circles import circles, filtered_board, player_club_ranks, week_standing
from .quick import quick_join, quick_leave
from .ratings import race_rating_changes
from .selectors import (
    calendar_month,
    leaderboard_for_day,
    player_calendar,
    player_get,
    player_record,
    would_rank,
)

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
    filter = inline_serializer(
        "BoardFilter",
        {"club": serializers.CharField(allow_null=True), "following": serializers.BooleanField()},
        required=False,
        help_text="only with ?club= or ?following=1: the rows are that circle's, each with"
        " its 'rank' in the circle and its 'global_rank' on the whole board",
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
        "Streak",
        {
            "current": serializers.IntegerField(),
            "longest": serializers.IntegerField(),
            "tokens": serializers.IntegerField(
                help_text="streak freezes held (0 to 3): one earned every 10th day won"
            ),
            "frozen": serializers.ListField(
                child=serializers.DateField(),
                help_text="the days a freeze was spent on: no win, the streak went on",
            ),
        },
    )
    following = serializers.BooleanField(
        allow_null=True, help_text="you follow this player (null: signed out, or yourself)"
    )
    club = inline_serializer(
        "PlayerClubRanks",
        {
            "slug": serializers.CharField(),
            "name": serializers.CharField(),
            "results": inline_serializer(
                "PlayerClubRank",
                {
                    "date": serializers.DateField(),
                    "variant": serializers.CharField(),
                    "rank": serializers.IntegerField(),
                    "count": serializers.IntegerField(),
                },
                many=True,
            ),
        },
        required=False,
        help_text="only with ?club=: the player's rank among the club's members per daily",
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
    race_rating = inline_serializer(
        "RaceRating",
        {
            "rating": serializers.IntegerField(
                help_text="Glicko-2, on the Glicko scale (1500 new)"
            ),
            "deviation": serializers.IntegerField(
                help_text="the rating's deviation (RD) now: 350 new, growing between races"
            ),
            "races": serializers.IntegerField(help_text="races rated"),
            "provisional": serializers.BooleanField(
                help_text="the deviation is 110 or more: shown with a '?'"
            ),
            "history": inline_serializer(
                "RaceRatingHistory",
                {
                    "race": serializers.CharField(
                        allow_null=True, help_text="the race's id (null: no longer kept)"
                    ),
                    "variant": serializers.CharField(),
                    "place": serializers.IntegerField(),
                    "racers": serializers.IntegerField(help_text="racers rated in it"),
                    "before": serializers.IntegerField(),
                    "after": serializers.IntegerField(),
                    "delta": serializers.IntegerField(),
                    "at": serializers.DateTimeField(),
                },
                many=True,
                help_text="the last 10 rated races, newest first",
            ),
        },
        allow_null=True,
        help_text="the race rating (issue 29); null before a first rated race",
    )


def _page(request: Request) -> int:
    raw = request.query_params.get("page", "1")
    # ASCII digits only: str.isdigit() also takes "²" (which int() refuses: a 500)
    # and "١" (which int() reads as 1).
    if not (raw.isascii() and raw.isdigit()) or not 1 <= int(raw) <= 1_000_000:
        raise ApiError(400, "bad_page", "'page' is a whole number from 1.")
    return int(raw)


class LeaderboardView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        parameters=[
            OpenApiParameter("date", OpenApiTypes.DATE, OpenApiParameter.PATH),
            OpenApiParameter("variant", str, OpenApiParameter.PATH, enum=ALL_VARIANTS),
            OpenApiParameter("page", int, required=False),
            OpenApiParameter(
                "club",
                str,
                required=False,
                description="a club's slug: its members' rows only (members only)",
            ),
            OpenApiParameter(
                "following",
                str,
                required=False,
                enum=["1"],
                description="1: the rows of the players you follow, and yours",
            ),
        ],
        responses={200: LeaderboardSerializer, **ERRORS},
        summary="A daily deal's ranking (RULES.md C11)",
    )
    def get(self, request: Request, date: str, variant: str) -> Response:
        club = request.query_params.get("club")
        following = _following(request)
        if club is not None or following:
            return Response(
                filtered_board(
                    date=parse_date(date),
                    variant=variant,
                    viewer=request.user,
                    club=club,
                    following=following,
                    page=_page(request),
                )
            )
        return Response(
            leaderboard_for_day(
                date=parse_date(date), variant=variant, viewer=request.user, page=_page(request)
            )
        )


class RaceRatingsSerializer(serializers.Serializer):
    race = serializers.CharField()
    rated = serializers.BooleanField(help_text="the race has ended and was rated")
    changes = inline_serializer(
        "RaceRatingChange",
        {
            "player": serializers.CharField(),
            "place": serializers.IntegerField(),
            "before": serializers.IntegerField(),
            "after": serializers.IntegerField(),
            "delta": serializers.IntegerField(help_text="after minus before, as shown"),
            "deviation": serializers.IntegerField(help_text="the deviation after the race"),
            "provisional": serializers.BooleanField(),
        },
        many=True,
        help_text="best place first; empty until the race is rated",
    )


class RaceRatingsView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        responses={200: RaceRatingsSerializer, **ERRORS},
        summary="What a finished race did to its racers' ratings",
    )
    def get(self, request: Request, race: str) -> Response:
        return Response(race_rating_changes(race=race))


class QuickAskSerializer(StrictSerializer):
    variant = StrictCharField(max_length=16)


class QuickSerializer(serializers.Serializer):  # documentation of quick_status
    variant = serializers.CharField()
    rating = serializers.IntegerField(help_text="your race rating when queued (1500 before any)")
    queued_at = serializers.DateTimeField()
    waited_ms = serializers.IntegerField()
    window = serializers.IntegerField(help_text="± race rating you are matched within now")
    queue = serializers.IntegerField(help_text="players waiting for this variant, you included")
    wait_s = serializers.FloatField(help_text="fewer than `full` start after this wait")
    full = serializers.IntegerField(help_text="racers a quick race starts with at once")
    race = serializers.CharField(allow_null=True, help_text="your race's id once matched")


class QuickRaceView(APIView):
    """``/api/races/quick/``: the quick race queue (``quick.py``)."""

    @extend_schema(
        request=QuickAskSerializer,
        responses={200: QuickSerializer, **ERRORS},
        summary="Queue for a quick race, or stay queued (ask every 1.5 s); the race once matched",
    )
    def post(self, request: Request) -> Response:
        rate_limit("quick-races", f"user-{request.user.pk}")
        data = QuickAskSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        return Response(quick_join(player=request.user, variant=data.validated_data["variant"]))

    @extend_schema(request=None, responses={204: None, **ERRORS}, summary="Leave the queue")
    def delete(self, request: Request) -> Response:
        quick_leave(player=request.user)
        return Response(status=204)


def _following(request: Request) -> bool:
    raw = request.query_params.get("following")
    if raw is None or raw == "0":
        return False
    if raw == "1":
        return True
    raise ApiError(400, "bad_following", "'following' is 1 (or 0).")


class CirclesSerializer(serializers.Serializer):
    date = serializers.DateField()
    variant = serializers.CharField()
    following = inline_serializer(
        "CircleRank",
        {"rank": serializers.IntegerField(), "count": serializers.IntegerField()},
        allow_null=True,
        help_text="your rank among the players you follow and you (null: you follow no one"
        " or have no result)",
    )
    clubs = inline_serializer(
        "ClubRank",
        {
            "slug": serializers.CharField(),
            "name": serializers.CharField(),
            "rank": serializers.IntegerField(),
            "count": serializers.IntegerField(),
        },
        many=True,
    )


class CirclesView(APIView):
    @extend_schema(
        responses={200: CirclesSerializer, **ERRORS},
        summary="Your rank on a daily among those you follow and in each of your clubs",
    )
    def get(self, request: Request, date: str, variant: str) -> Response:
        return Response(circles(date=parse_date(date), variant=variant, viewer=request.user))


class WeekView(APIView):
    @extend_schema(
        parameters=[
            OpenApiParameter(
                "week",
                str,
                required=False,
                description="YYYY-Www (ISO week); this week if left out",
            )
        ],
        responses={200: OpenApiTypes.OBJECT, **ERRORS},
        summary="A club's weekly standing (members only)",
    )
    def get(self, request: Request, slug: str) -> Response:
        return Response(
            week_standing(slug=slug, viewer=request.user, week=request.query_params.get("week"))
        )


class PlayerView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "club", str, required=False, description="a club's slug (members only)"
            )
        ],
        responses={200: PlayerSerializer, **ERRORS},
        summary="A player's record",
    )
    def get(self, request: Request, username: str) -> Response:
        record = player_record(username=username)
        viewer = request.user
        record["following"] = (
            follows(follower=viewer, followed=player_get(username=username))
            if viewer.is_authenticated
            and not getattr(viewer, "is_guest", False)
            and viewer.get_username() != record["username"]
            else None
        )
        club = request.query_params.get("club")
        if club is not None:
            record["club"] = player_club_ranks(username=username, club=club, viewer=viewer)
        return Response(record)


RESULTS = ["won", "resigned", "abandoned", "playing", "disqualified", "failed_check"]


class CalendarDay(serializers.Serializer):
    date = serializers.DateField()
    today = serializers.BooleanField()
    dailies = serializers.ListField(
        child=serializers.CharField(), help_text="the variants that had a daily deal that day"
    )
    results = serializers.DictField(
        child=serializers.ChoiceField(RESULTS),
        help_text="the player's ranked result per variant played (none when anonymous);"
        " only 'won' counts for the record and the streak",
    )
    frozen = serializers.BooleanField(
        help_text="a streak freeze of the player was spent on that day (false when anonymous)"
    )


class CalendarSerializer(serializers.Serializer):
    month = serializers.CharField(help_text="YYYY-MM")
    today = serializers.DateField()
    player = serializers.CharField(allow_null=True)
    variants = serializers.ListField(child=serializers.CharField())
    first = serializers.CharField(help_text="the first month with daily deals (YYYY-MM)")
    previous = serializers.CharField(allow_null=True)
    next = serializers.CharField(allow_null=True)
    days = CalendarDay(many=True, help_text="the month's days up to today")


MONTH = OpenApiParameter(
    "month", str, required=False, description="YYYY-MM; the current month (UTC) if left out"
)


def _month(request: Request) -> dt.date:
    raw = request.query_params.get("month")
    return utc_today().replace(day=1) if raw is None else parse_month(raw)


class CalendarView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        parameters=[MONTH],
        responses={200: CalendarSerializer, **ERRORS},
        summary="A month of daily deals: which days had them",
    )
    def get(self, request: Request) -> Response:
        return Response(calendar_month(month=_month(request), user=None))


class PlayerCalendarView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        parameters=[MONTH],
        responses={200: CalendarSerializer, **ERRORS},
        summary="A month of a player's daily deals: their ranked result on each",
    )
    def get(self, request: Request, username: str) -> Response:
        return Response(player_calendar(username=username, month=_month(request)))


class WouldRankSerializer(serializers.Serializer):  # documentation of the answer
    game = serializers.IntegerField()
    date = serializers.DateField(help_text="the day whose daily deal the game practised")
    variant = serializers.CharField()
    rank = serializers.IntegerField(help_text="the rank it would have had (C11)")
    count = serializers.IntegerField(help_text="the day's counted results, and this one")
    beaten = serializers.IntegerField(help_text="the day's counted results it ranks before")
    percentile = serializers.FloatField(
        allow_null=True,
        help_text="beaten as a percentage of the day's counted results, rounded down to"
        " 0.1 (null: the day had none)",
    )
    leaderboard = serializers.CharField(help_text="the day's leaderboard page")


class WouldRankView(APIView):
    @extend_schema(
        responses={200: WouldRankSerializer, **ERRORS},
        summary="Your finished practice of a past daily: where it would have ranked that day",
    )
    def get(self, request: Request, game: str) -> Response:
        return Response(would_rank(attempt_id=_game_id(game), player=request.user))


def _game_id(text: str) -> int:
    """A game id in the path, read as ``<game_id:…>`` reads one; anything else is
    no game (404), not the day's board the path would otherwise fall to."""
    if re.fullmatch(GameIdConverter.regex, text):
        with contextlib.suppress(ValueError):  # past the largest id
            return GameIdConverter().to_python(text)
    raise NotFound("not_found", f"No game {text!r}.")


LEVEL = inline_serializer(
    "DifficultyLevel",
    {"level": serializers.IntegerField(allow_null=True), "name": serializers.CharField()},
    allow_null=True,
)


class DifficultyMonthSerializer(serializers.Serializer):
    month = serializers.CharField(help_text="YYYY-MM")
    variants = serializers.ListField(child=serializers.CharField())
    days = inline_serializer(
        "DifficultyDay",
        {
            "date": serializers.DateField(),
            "variant": serializers.CharField(),
            "predicted": LEVEL,
            "measured": LEVEL.__class__(allow_null=True),
            "players": serializers.IntegerField(allow_null=True),
            "win_rate": serializers.FloatField(allow_null=True),
            "delta": serializers.IntegerField(
                allow_null=True, help_text="measured level minus predicted level"
            ),
        },
        many=True,
        help_text="the month's daily deals whose day is over",
    )


class DifficultyView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        parameters=[MONTH],
        responses={200: DifficultyMonthSerializer, **ERRORS},
        summary="A month of past daily deals: predicted against measured difficulty",
    )
    def get(self, request: Request) -> Response:
        return Response(difficulty_month(month=_month(request)))
