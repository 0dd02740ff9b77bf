"""``/api/reminders/…``: the reminder of the new daily, by push or mail (issue
28, deliverable 3; ``accounts/reminders.py``)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import (
    JSONParser,
    RateThrottle,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictSerializer,
)
from kit.http import ApiError

from .api import TokenSerializer
from .models import Reminder
from .reminders import (
    push_available,
    push_subscribe,
    push_unsubscribe,
    reminder_of,
    reminder_off_by_token,
    reminder_set,
    reminder_state,
)

# --- reminders (issue 28, deliverable 3; accounts/reminders.py) ------------------------------


class ReminderSerializer(StrictSerializer):
    channel = StrictChoiceField(Reminder.Channel.values, help_text="off, push or email")
    hour = StrictIntegerField(
        required=False,
        allow_null=True,
        help_text="0-23 local; null: when the day opens (00:00 UTC)",
    )
    timezone = StrictCharField(
        required=False, allow_blank=True, max_length=64, help_text="the browser's IANA time zone"
    )


class PushKeysSerializer(StrictSerializer):
    p256dh = StrictCharField(max_length=200, trim_whitespace=False)
    auth = StrictCharField(max_length=200, trim_whitespace=False)


class PushSubscribeSerializer(StrictSerializer):
    """``PushSubscription.toJSON()`` as a browser gives it, and a label."""

    endpoint = StrictCharField(max_length=2048, trim_whitespace=False)
    expirationTime = serializers.IntegerField(required=False, allow_null=True)
    keys = PushKeysSerializer()
    label = StrictCharField(max_length=200, required=False, allow_blank=True)


class PushRemoveSerializer(StrictSerializer):
    endpoint = StrictCharField(max_length=2048, required=False, trim_whitespace=False)
    id = StrictIntegerField(required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(attrs) != 1:
            raise ApiError(400, "bad_target", 'Name the subscription by "endpoint" or by "id".')
        return attrs


class ReminderKeySerializer(serializers.Serializer):  # type: ignore[type-arg]
    push_available = serializers.BooleanField()
    vapid_public_key = serializers.CharField(allow_null=True)


class ReminderView(APIView):
    """``GET`` / ``PUT /api/reminders/``: the signed-in player's reminder of the
    new daily — ``off``, ``push`` or ``email``, when — and their push devices."""

    throttle_classes = (RateThrottle,)
    throttle_scope = "account-changes"

    def check_throttles(self, request: Request) -> None:
        if request.method != "GET":
            super().check_throttles(request)

    @extend_schema(responses={200: dict}, summary="Your reminder of the new daily")
    def get(self, request: Request) -> Response:
        return Response(reminder_state(user=request.user))

    @extend_schema(request=ReminderSerializer, responses={200: dict})
    def put(self, request: Request) -> Response:
        data = ReminderSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        reminder_set(
            user=request.user,
            channel=fields["channel"],
            hour=fields.get("hour"),
            zone=fields.get("timezone") or None,
        )
        return Response(reminder_state(user=request.user))


class ReminderKeyView(APIView):
    """``GET /api/reminders/key/``: the public VAPID key a browser subscribes with
    (null: this server sends no push; email reminders still go)."""

    permission_classes = (AllowAny,)

    @extend_schema(responses={200: ReminderKeySerializer})
    def get(self, request: Request) -> Response:
        return Response(
            {
                "push_available": push_available(),
                "vapid_public_key": settings.VAPID_PUBLIC_KEY or None,
            }
        )


class PushView(APIView):
    """``POST /api/reminders/push/``: keep this browser's push subscription;
    ``DELETE`` with ``{"endpoint"}`` or ``{"id"}``: remove one of yours."""

    throttle_classes = (RateThrottle,)
    throttle_scope = "account-changes"

    @extend_schema(request=PushSubscribeSerializer, responses={201: dict})
    def post(self, request: Request) -> Response:
        data = PushSubscribeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        sub = push_subscribe(
            user=request.user,
            endpoint=fields["endpoint"],
            p256dh=fields["keys"]["p256dh"],
            auth=fields["keys"]["auth"],
            label=fields.get("label", ""),
        )
        return Response(
            {"id": sub.pk, "label": sub.label, "created": sub.created.isoformat()}, status=201
        )

    @extend_schema(request=PushRemoveSerializer, responses={200: dict})
    def delete(self, request: Request) -> Response:
        data = PushRemoveSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = data.validated_data
        push_unsubscribe(user=request.user, endpoint=fields.get("endpoint"), pk=fields.get("id"))
        return Response(reminder_state(user=request.user))


class ReminderOffView(APIView):
    """``POST /api/reminders/unsubscribe/?token=…``: the reminder mail's one-click
    unsubscribe (RFC 8058: a mail client posts ``List-Unsubscribe=One-Click``,
    form-encoded, with no cookie), or the page its link opens (JSON
    ``{"token"}``). The signed token is the authority: no session, no CSRF."""

    permission_classes = (AllowAny,)
    authentication_classes = ()
    parser_classes = (JSONParser, FormParser)

    @extend_schema(request=TokenSerializer, responses={200: dict})
    def post(self, request: Request) -> Response:
        token = request.query_params.get("token")
        if token is None:
            data = TokenSerializer(data=request.data)
            data.is_valid(raise_exception=True)
            token = data.validated_data["token"]
        if not isinstance(token, str) or len(token) > 512:
            raise ApiError(400, "bad_token", "This link is not valid.")
        user = reminder_off_by_token(token=token)
        return Response({"username": user.username, "channel": reminder_of(user).channel})
