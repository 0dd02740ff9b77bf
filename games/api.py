"""``/api/daily/`` and ``/api/games/…`` (PRODUCT.md, HTTP API). Views parse input,
call one service or selector, and render the result."""

from __future__ import annotations

import base64
from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, extend_schema, inline_serializer
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import (
    ERROR,
    ERRORS,
    RateThrottle,
    StrictBooleanField,
    StrictCharField,
    StrictIntegerField,
    StrictObjectField,
    StrictSerializer,
    client_ip,
    client_network,
    parse_date,
    rate_limit,
)
from kit.http import ApiError

from .analysis import attempt_analysis_json
from .dailies import utc_today
from .dayfile import day_results_get
from .device import device_id
from .metrics import ActionMeter
from .selectors import (
    attempt_for_viewer,
    attempt_json,
    attempt_last_winnable,
    attempt_of_player,
    daily_json,
    live_games,
    replay_json,
)
from .services import ActionRefused, attempt_apply_action, attempt_resign, attempt_start
from .tasks import queue_analysis

# --- shapes, for input checks and the OpenAPI document -------------------------

START_EXAMPLES = [
    OpenApiExample("today's daily", {"daily": "EH1-N"}, request_only=True),
    OpenApiExample("a deal proven winnable", {"random": "SH1-C2"}, request_only=True),
    OpenApiExample(
        "any random deal (may be impossible)", {"random": "SH1-C2", "any": True}, request_only=True
    ),
    OpenApiExample("a deal by code", {"code": "SH1-C4-AAAAAJ2"}, request_only=True),
    OpenApiExample(
        "a past day's daily deal, by the code revealed once its day is over",
        {"code": "EH1-N-" + "A" * 25 + "B"},
        request_only=True,
    ),
]
ACTION_EXAMPLES = [
    OpenApiExample(
        "move", {"seq": 0, "action": {"type": "move", "from": "t1", "to": "c3"}}, request_only=True
    ),
    OpenApiExample("tap", {"seq": 0, "action": {"type": "tap", "from": "t2"}}, request_only=True),
    OpenApiExample("stock", {"seq": 0, "action": {"type": "stock"}}, request_only=True),
    OpenApiExample("undo", {"seq": 1, "action": {"type": "undo"}}, request_only=True),
]


class StartSerializer(StrictSerializer):
    """Exactly one of ``daily`` (a variant), ``random`` (a variant) or ``code``;
    ``any: true`` beside ``random`` deals any numbered deal instead of one the
    solver proved winnable. No practice copy of a running daily is dealt, to
    anyone (PRODUCT.md, anti-cheat): ``practice: true`` beside ``daily``, and a
    ``code`` dealing the cards of a daily not yet over, are refused with 409
    ``daily_running``; a day's deals open for practice once it ends (00:00 UTC),
    by the codes ``GET /api/daily/{date}/`` reveals then."""

    daily = StrictCharField(required=False, max_length=16)
    random = StrictCharField(required=False, max_length=16)
    code = StrictCharField(required=False, max_length=48)
    practice = StrictBooleanField(
        required=False,
        help_text="with 'daily': refused (409 daily_running) — today's deal opens for practice"
        " once its day ends (00:00 UTC), by its revealed code",
    )
    any = StrictBooleanField(
        required=False, help_text="with 'random': any deal, maybe impossible (default: proven)"
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len([k for k in ("daily", "random", "code") if k in attrs]) != 1:
            raise serializers.ValidationError(
                {"body": ["Send exactly one of 'daily', 'random' or 'code'."]}
            )
        if attrs.get("practice") and "daily" not in attrs:
            raise serializers.ValidationError(
                {"practice": ["'practice' goes with 'daily' (and is refused while its day runs)."]}
            )
        if "any" in attrs and "random" not in attrs:
            raise serializers.ValidationError(
                {"any": ["'any' goes with 'random': any random deal instead of a proven one."]}
            )
        return attrs


class ActionSerializer(StrictSerializer):
    seq = StrictIntegerField(min_value=0)
    action = StrictObjectField()


def action_input(body: Any) -> tuple[int, dict[str, Any]]:
    """``seq`` and ``action`` of an action body (HTTP or websocket). The usual exact
    shape is taken at once; anything else goes through ``ActionSerializer``,
    which names what is wrong."""
    if type(body) is dict and body.keys() == {"seq", "action"}:
        seq, action = body["seq"], body["action"]
        if type(seq) is int and seq >= 0 and type(action) is dict:
            return seq, action
    data = ActionSerializer(data=body)
    data.is_valid(raise_exception=True)
    return data.validated_data["seq"], data.validated_data["action"]


class AttemptSerializer(serializers.Serializer):  # documentation of attempt_json
    id = serializers.IntegerField()
    ranked = serializers.BooleanField()
    status = serializers.ChoiceField(["playing", "won", "resigned", "abandoned"])
    seq = serializers.IntegerField()
    code = serializers.CharField(
        allow_null=True,
        help_text="null while the game's daily deal is running, and for a race's game that"
        " hides cards (Easy Harp) while the race runs",
    )
    variant = serializers.CharField()
    daily = serializers.DateField(allow_null=True)
    player = serializers.CharField()
    started_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    elapsed_ms = serializers.IntegerField(
        help_text="server time since the start; negative while a race's countdown runs"
    )
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    won = serializers.BooleanField()
    verified = serializers.BooleanField(allow_null=True)
    unwinnable = serializers.BooleanField(help_text="the solver proved this position lost")
    proven = serializers.BooleanField(
        allow_null=True,
        help_text="a New deal: true = proven winnable, false = any deal (maybe impossible);"
        " null for a daily or a code",
    )
    duplicate = serializers.BooleanField()
    view = serializers.JSONField(
        help_text="State JSON (player's view, with 'finish': the auto-finish moves) plus 'targets'"
    )


class DailySerializer(serializers.Serializer):
    date = serializers.DateField()
    over = serializers.BooleanField(help_text="the day has ended: codes and proofs are revealed")
    ends_at = serializers.DateTimeField()
    seconds_left = serializers.IntegerField()
    deals = inline_serializer(
        "DailyEntry",
        {
            "variant": serializers.CharField(),
            "commitment": serializers.CharField(help_text="SHA-256 (hex) of the code string"),
            "par": serializers.IntegerField(
                allow_null=True, help_text="moves in the solver's winning line"
            ),
            "proven": serializers.BooleanField(help_text="a solver line wins the deal"),
            "status": serializers.CharField(),
            "attempt": serializers.IntegerField(allow_null=True),
            "score": serializers.IntegerField(allow_null=True),
            "replays_open": serializers.BooleanField(
                help_text="the viewer may see this day's replays and live games now"
            ),
            "leaderboard": serializers.CharField(),
            "code": serializers.CharField(required=False, help_text="once the day is over"),
            "proof": serializers.ListField(
                child=serializers.JSONField(),
                required=False,
                allow_null=True,
                help_text="once the day is over: the solver's winning line (null if unproven)",
            ),
            "results": inline_serializer(
                "DayResultsFile",
                {
                    "url": serializers.CharField(),
                    "sha256": serializers.CharField(help_text="SHA-256 (hex) of the file"),
                    "count": serializers.IntegerField(help_text="results in the file"),
                    "built_at": serializers.DateTimeField(),
                    "file": serializers.CharField(help_text="the name it downloads under"),
                    "earlier": serializers.ListField(
                        child=serializers.JSONField(),
                        help_text='the files it replaced, oldest first: {"sha256", "built_at",'
                        ' "replaced_at", "reason": "deleted" (a player deleted their account)'
                        ' | "changed" (a result on the board changed)}',
                    ),
                },
                required=False,
                allow_null=True,
                help_text="once the day is over: the file of every counted result with its"
                " actions, for verify-day (null until it is built)",
            ),
            "difficulty": serializers.JSONField(
                help_text='{"predicted": counts and level | null, "measured": null until the'
                ' day is over, "histogram": the counted results\' outcomes} (docs/api.md)'
            ),
        },
        many=True,
    )


class ReplaySerializer(serializers.Serializer):
    id = serializers.IntegerField()
    code = serializers.CharField(allow_null=True, help_text="null while its daily deal runs")
    variant = serializers.CharField()
    player = serializers.CharField()
    ranked = serializers.BooleanField()
    daily = serializers.DateField(allow_null=True)
    status = serializers.CharField()
    won = serializers.BooleanField()
    score = serializers.IntegerField()
    moves = serializers.IntegerField()
    elapsed_ms = serializers.IntegerField(allow_null=True)
    verified = serializers.BooleanField(allow_null=True)
    positions = serializers.ListField(
        child=serializers.JSONField(),
        required=False,
        help_text="with ?positions=1: the full view after each action, the deal first",
    )
    deal = serializers.JSONField(help_text="State JSON, full view of the starting deal")
    actions = serializers.ListField(child=serializers.JSONField())
    log = inline_serializer(
        "ReplayLogEntry",
        {
            "ms": serializers.IntegerField(),
            "score": serializers.IntegerField(),
            "moves": serializers.IntegerField(),
        },
        many=True,
    )


# --- views ---------------------------------------------------------------------


class DailyView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(responses={200: DailySerializer}, summary="Today's daily deals (UTC)")
    def get(self, request: Request) -> Response:
        return Response(daily_json(date=utc_today(), viewer=request.user))


class DailyDayView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="daily_day_retrieve",
        parameters=[OpenApiParameter("date", OpenApiTypes.DATE, OpenApiParameter.PATH)],
        responses={200: DailySerializer, **ERRORS},
        summary="One day's daily deals: commitments, and once it is over codes and proofs",
    )
    def get(self, request: Request, date: str) -> Response:
        return Response(daily_json(date=parse_date(date), viewer=request.user))


class DayResultsView(APIView):
    """The results file of a closed day (issue 27): the bytes its published
    ``sha256`` is of, as an attachment; the hash in ``ETag`` and ``Repr-Digest``."""

    permission_classes = (AllowAny,)

    @extend_schema(
        operation_id="daily_results_retrieve",
        parameters=[OpenApiParameter("date", OpenApiTypes.DATE, OpenApiParameter.PATH)],
        responses={(200, "application/jsonl"): OpenApiTypes.BINARY, **ERRORS},
        summary="A closed day's results file (JSON lines), for python -m games.engine verify-day",
    )
    def get(self, request: Request, date: str, variant: str) -> HttpResponse:
        results, data = day_results_get(date=parse_date(date), variant=variant)
        response = HttpResponse(data, content_type="application/jsonl")
        response["Content-Disposition"] = f'attachment; filename="{results.filename}"'
        response["ETag"] = f'"{results.sha256}"'
        digest = base64.b64encode(bytes.fromhex(results.sha256)).decode("ascii")
        response["Repr-Digest"] = f"sha-256=:{digest}:"
        # Rebuilt when the day's board changes: ask again rather than keep a stale copy.
        response["Cache-Control"] = "no-cache"
        return response


class GamesView(APIView):
    throttle_classes = (RateThrottle,)
    throttle_scope = "games"

    @extend_schema(
        request=StartSerializer,
        responses={201: AttemptSerializer, 200: AttemptSerializer, **ERRORS},
        examples=START_EXAMPLES,
        summary="Start a game: the daily (ranked, once), a random (proven winnable) deal or a code",
    )
    def post(self, request: Request) -> Response:
        data = StartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        attempt, created = attempt_start(
            player=request.user,
            address=client_ip(request),
            device=device_id(request),
            any_deal=fields.pop("any", False),
            **fields,
        )
        return Response(attempt_json(attempt, viewer=request.user), status=201 if created else 200)


class GameView(APIView):
    @extend_schema(responses={200: AttemptSerializer, **ERRORS})
    def get(self, request: Request, attempt_id: int) -> Response:
        attempt = attempt_of_player(attempt_id=attempt_id, player=request.user)
        return Response(attempt_json(attempt, viewer=request.user))


class ActionsView(APIView):
    throttle_classes = (RateThrottle,)
    throttle_scope = "actions"
    meter: ActionMeter

    def initial(self, request: Request, *args: Any, **kwargs: Any) -> None:
        # Started before DRF's checks: sign-in, CSRF and rate-limit refusals count too.
        self.meter = ActionMeter("http", kwargs["attempt_id"])
        super().initial(request, *args, **kwargs)

    def finalize_response(
        self, request: Request, response: HttpResponse, *args: Any, **kwargs: Any
    ) -> HttpResponse:
        if request.method == "POST" and hasattr(self, "meter"):
            # DRF has answered any error by now, in the one shape: count it by its code.
            body = getattr(response, "data", None)
            error = body.get("error") if isinstance(body, dict) else None
            self.meter.answered(response.status_code, error and error.get("code"))
        return super().finalize_response(request, response, *args, **kwargs)

    @extend_schema(
        request=ActionSerializer,
        responses={200: AttemptSerializer, **ERRORS},
        examples=ACTION_EXAMPLES,
        summary="Apply one action; seq = actions accepted so far",
    )
    def post(self, request: Request, attempt_id: int) -> HttpResponse:
        seq, action = action_input(request.data)
        try:
            applied = attempt_apply_action(
                attempt_id=attempt_id, player=request.user, seq=seq, action=action
            )
        except ActionRefused as refused:  # answered by DRF's handler; logged as it read it
            self.meter.said = refused.action or {}
            raise
        self.meter.said, self.meter.duplicate = applied.action, applied.duplicate
        # The attempt object as the player sees it, encoded once in the service.
        return HttpResponse(applied.game_text, content_type="application/json")


class ResignView(APIView):
    @extend_schema(request=None, responses={200: AttemptSerializer, **ERRORS})
    def post(self, request: Request, attempt_id: int) -> HttpResponse:
        applied = attempt_resign(attempt_id=attempt_id, player=request.user)
        return HttpResponse(applied.game_text, content_type="application/json")


class LastWinnableSerializer(serializers.Serializer):  # documentation of the answer
    seq = serializers.IntegerField(help_text="the game's seq this answer is for: the first undo's")
    undos = serializers.IntegerField(help_text="undos back to the last position that can be won")
    settled = serializers.BooleanField(
        help_text="the position one undo nearer is proven lost (false: the solver ran out of"
        " time between them; the position named is still proven winnable)"
    )


class LastWinnableView(APIView):
    @extend_schema(
        responses={200: LastWinnableSerializer, **ERRORS},
        summary="A lost Seahaven game: how many undos back the last position that can be won is",
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        # A search costs about what a new deal does: counted in the same budget.
        rate_limit("games", f"user-{request.user.pk}")
        return Response(attempt_last_winnable(attempt_id=attempt_id, player=request.user))


class ReplayView(APIView):
    @extend_schema(
        # 410 archived: the game's month of the action log went to cold storage.
        responses={200: ReplaySerializer, **ERRORS, 410: ERROR},
        parameters=[
            OpenApiParameter(
                "positions",
                bool,
                description="also the full view after each action (for viewers without rules)",
            )
        ],
        summary="A finished game's replay",
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        flag = request.query_params.get("positions", "0")
        if flag not in ("0", "1", "true", "false"):
            raise ApiError(400, "invalid", "positions: expected 1 or 0.")
        attempt = attempt_for_viewer(attempt_id=attempt_id, viewer=request.user)
        return Response(replay_json(attempt, positions=flag in ("1", "true")))


class LiveGameSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    variant = serializers.CharField()
    code = serializers.CharField(allow_null=True, help_text="null while its daily deal runs")
    daily = serializers.DateField(allow_null=True)
    player = serializers.CharField()
    ranked = serializers.BooleanField()
    moves = serializers.IntegerField()
    score = serializers.IntegerField()
    started_at = serializers.DateTimeField()
    watch = serializers.CharField(help_text="the websocket path to watch it")


class LiveView(APIView):
    # Open to a signed-out visitor (issue 39), who sees what a player who won no
    # running daily sees; watching one makes them a guest (the game socket needs a player).
    permission_classes = (AllowAny,)

    @extend_schema(
        responses={200: LiveGameSerializer(many=True), **ERRORS},
        summary="Games in progress you may watch",
    )
    def get(self, request: Request) -> Response:
        return Response(live_games(viewer=request.user))


class AnalysisSerializer(serializers.Serializer):  # documentation of attempt_analysis_json
    id = serializers.IntegerField()
    won = serializers.BooleanField()
    settled = serializers.BooleanField(
        help_text="the answer is proven (false: the solver could not settle it in time)"
    )
    probes = serializers.IntegerField(help_text="solver calls made")
    seconds = serializers.FloatField(help_text="time the search took")
    length = serializers.IntegerField(help_text="actions on the line the game stood on")
    computed_at = serializers.DateTimeField()
    lost = inline_serializer(
        "AnalysisLost",
        {
            "index": serializers.IntegerField(
                allow_null=True, help_text="last position proven winnable (actions on the line)"
            ),
            "seq": serializers.IntegerField(
                allow_null=True, help_text="seq of the losing action in the replay's log"
            ),
            "losing": serializers.JSONField(allow_null=True),
            "from_start": serializers.BooleanField(help_text="the deal was lost from its start"),
            "still_winnable": serializers.BooleanField(help_text="it ended on a winnable position"),
            "before": serializers.JSONField(
                allow_null=True, help_text="State JSON, full view, of the position before it"
            ),
            "seen": serializers.JSONField(
                allow_null=True,
                help_text="{view, face_down, stock}: what the player could see there, when"
                " cards were hidden (Easy Harp)",
            ),
            "continuation": serializers.ListField(child=serializers.JSONField()),
            "positions": serializers.ListField(
                child=serializers.JSONField(), help_text="full view after each continuation step"
            ),
        },
        allow_null=True,
    )
    par = inline_serializer(
        "AnalysisPar",
        {
            "par": serializers.IntegerField(allow_null=True),
            "over_par": serializers.IntegerField(allow_null=True),
            "seq": serializers.IntegerField(
                allow_null=True, help_text="seq of the first action off the par line"
            ),
        },
        allow_null=True,
    )


class AnalysisView(APIView):
    @extend_schema(
        responses={200: AnalysisSerializer, **ERRORS, 410: ERROR},
        summary="A finished game's post-mortem: where it went wrong, or its line against par",
    )
    def get(self, request: Request, attempt_id: int) -> Response:
        # Each analysis queued on demand spends the player's ANALYSIS_RATE (429 over
        # it, nothing queued); asking again for one pending or stored spends nothing.
        user = request.user
        ident = f"user-{user.pk}" if user.is_authenticated else client_network(request)

        def queue(pk: int) -> None:
            queue_analysis(pk, budget=lambda: rate_limit("analyses", ident))

        return Response(
            attempt_analysis_json(attempt_id=attempt_id, viewer=request.user, queue=queue)
        )
