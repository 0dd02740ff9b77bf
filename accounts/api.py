"""``/api/auth/``: me, register, login, logout (PRODUCT.md, HTTP API)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import AnonymousUser
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from config.api import (
    RateThrottle,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictSerializer,
)
from config.errors import ApiError

from .models import User
from .services import user_register, user_settings, user_update_settings


class SettingsSerializer(StrictSerializer):
    """The client's settings, stored with the account (issue 6; the appearance,
    issue 15). A PATCH names any of them; a bad one refuses the whole change."""

    language = StrictChoiceField(
        User.Language.values, required=False, help_text="empty: the browser's language"
    )
    double_click = StrictBooleanField(required=False)
    interactive_rules = StrictBooleanField(required=False)
    theme = StrictChoiceField(
        User.Theme.values, required=False, help_text="empty: follow prefers-color-scheme"
    )
    deck = StrictChoiceField(
        User.Deck.values, required=False, help_text="four: clubs green, diamonds blue"
    )
    sounds = StrictBooleanField(required=False, help_text="off unless asked for")
    motion = StrictChoiceField(
        User.Motion.values, required=False, help_text="empty: follow prefers-reduced-motion"
    )
    tap = StrictChoiceField(
        User.Tap.values,
        required=False,
        help_text="best: one tap plays the card to its best place; foundation: to a foundation",
    )


class MeSerializer(serializers.Serializer):  # type: ignore[type-arg]
    authenticated = serializers.BooleanField()
    username = serializers.CharField(allow_null=True)
    settings = SettingsSerializer(allow_null=True)


class CredentialsSerializer(StrictSerializer):
    username = StrictCharField(max_length=150, trim_whitespace=False)
    password = StrictCharField(max_length=128, trim_whitespace=False)


def me_json(request: Request) -> dict[str, Any]:
    user = request.user
    return {
        "authenticated": bool(user.is_authenticated),
        "username": user.get_username() if user.is_authenticated else None,
        "settings": user_settings(user) if isinstance(user, User) else None,
    }


def remember_language(response: Response, user: Any) -> Response:
    """The account's language wins over the browser's, also before sign-in is
    known to a page (Django's language cookie); "browser default" drops it."""
    if isinstance(user, User):
        if user.language:
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME, user.language, samesite="Lax", max_age=365 * 86400
            )
        else:
            response.delete_cookie(settings.LANGUAGE_COOKIE_NAME, samesite="Lax")
    return response


@method_decorator(ensure_csrf_cookie, name="dispatch")
class MeView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(responses={200: MeSerializer}, summary="Who am I (sets the csrftoken cookie)")
    def get(self, request: Request) -> Response:
        return Response(me_json(request))


class RegisterView(APIView):
    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "register"

    @extend_schema(request=CredentialsSerializer, responses={201: MeSerializer})
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_register(**data.validated_data)
        login(request._request, user)
        request.user = user  # DRF's request caches the user it authenticated
        return Response(me_json(request), status=201)


class LoginView(APIView):
    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "login"

    @extend_schema(request=CredentialsSerializer, responses={200: MeSerializer})
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = authenticate(request._request, **data.validated_data)
        if user is None:
            raise ApiError(400, "bad_credentials", "That username and password do not match.")
        login(request._request, user)
        request.user = user
        return remember_language(Response(me_json(request)), user)


class LogoutView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(request=None, responses={200: MeSerializer})
    def post(self, request: Request) -> Response:
        logout(request._request)
        request.user = AnonymousUser()
        return Response(me_json(request))


class SettingsView(APIView):
    """``GET`` / ``PATCH /api/auth/settings/``: the signed-in player's settings."""

    @extend_schema(responses={200: SettingsSerializer}, summary="Your client settings")
    def get(self, request: Request) -> Response:
        return Response(user_settings(request.user))

    @extend_schema(
        request=SettingsSerializer,
        responses={200: SettingsSerializer},
        summary="Change some of your client settings",
    )
    def patch(self, request: Request) -> Response:
        data = SettingsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = user_update_settings(user=request.user, **data.validated_data)
        return remember_language(Response(user_settings(user)), user)
