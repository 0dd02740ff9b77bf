"""``/api/auth/``: me, register, login, logout (PRODUCT.md, HTTP API)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, login, logout
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import (
    RateThrottle,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictSerializer,
)
from kit.http import ApiError

from .models import User
from .recovery import (
    email_set,
    signin_noticed,
)
from .services import (
    guest_create,
    user_register,
    user_settings,
    user_update_settings,
)
from .signals import claim_guest
from .signin import count_attempt, known_device, remember_device
from .sockets import sockets_close


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
    authenticated = serializers.BooleanField(help_text="signed in to an account (not a guest)")
    username = serializers.CharField(allow_null=True)
    settings = SettingsSerializer(allow_null=True)
    guest = serializers.BooleanField(
        help_text="playing as a guest: signed out, with games bound to this session"
    )
    email = serializers.CharField(
        allow_null=True, help_text="the account's email, shown to its owner only; null: none"
    )
    email_verified = serializers.BooleanField(
        help_text="its link was followed: password resets are mailed to it"
    )


class ClaimSerializer(serializers.Serializer):  # type: ignore[type-arg]
    claimed = serializers.ListField(child=serializers.IntegerField())
    kept = serializers.ListField(child=serializers.JSONField())


class SignedInSerializer(MeSerializer):
    claim = ClaimSerializer(
        required=False, help_text="signed in from a guest's session: which of its games came along"
    )


class CredentialsSerializer(StrictSerializer):
    username = StrictCharField(max_length=150, trim_whitespace=False)
    password = StrictCharField(max_length=128, trim_whitespace=False)


class RegisterSerializer(CredentialsSerializer):
    email = StrictCharField(
        max_length=254,
        required=False,
        allow_blank=True,
        help_text="optional; a link to verify it is mailed to it (issue 28)",
    )


def account_of(user: Any) -> User | None:
    """The account signed in, if any: not a guest (whose session is a player, but
    no one's account)."""
    return user if isinstance(user, User) and not user.is_guest else None


def guest_of(user: Any) -> User | None:
    return user if isinstance(user, User) and user.is_guest else None


def me_json(request: Request) -> dict[str, Any]:
    """The me object of PRODUCT.md; a guest is not ``authenticated`` (no account)
    but ``guest``, and keeps its settings in the browser as a visitor does."""
    account = account_of(request.user)
    return {
        "authenticated": account is not None,
        "username": account.get_username() if account else None,
        "settings": user_settings(account) if account else None,
        "guest": guest_of(request.user) is not None,
        "email": (account.email or None) if account else None,
        "email_verified": bool(account and account.email and account.email_verified),
    }


def sign_in(request: Request, user: User, *, guest: User | None) -> dict[str, Any]:
    """Start ``user``'s session; signed in from a guest's session, the guest's
    games come along (``claim``, issue 24)."""
    login(request._request, user)
    request.user = user  # DRF's request caches the user it authenticated
    if guest is None:
        return me_json(request)
    return {**me_json(request), "claim": claim_guest(guest=guest, account=user)}


def remember_language(response: Response, user: Any) -> Response:
    """The account's language wins over the browser's, also before sign-in is
    known to a page (Django's language cookie); "browser default" drops it."""
    if isinstance(user, User):
        if user.language:
            # The flags Django's own set_language view gives it (config/settings.py):
            # Secure under HTTPS, readable by the client (settings.js reads it).
            response.set_cookie(
                settings.LANGUAGE_COOKIE_NAME,
                user.language,
                max_age=365 * 86400,
                samesite=settings.LANGUAGE_COOKIE_SAMESITE,
                secure=settings.LANGUAGE_COOKIE_SECURE,
                httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
            )
        else:
            response.delete_cookie(
                settings.LANGUAGE_COOKIE_NAME, samesite=settings.LANGUAGE_COOKIE_SAMESITE
            )
    return response


@method_decorator(ensure_csrf_cookie, name="dispatch")
class MeView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(responses={200: MeSerializer}, summary="Who am I (sets the csrftoken cookie)")
    def get(self, request: Request) -> Response:
        return Response(me_json(request))


class GuestView(APIView):
    """``POST /api/auth/guest/``: play as a guest (issue 24) — a player bound to
    this session, made for a signed-out visitor; counted per address, as sign-ups
    are. Already a guest or signed in: the same session, nothing made (200)."""

    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "guests"

    def check_throttles(self, request: Request) -> None:
        if not request.user.is_authenticated:  # only a guest made counts
            super().check_throttles(request)

    @extend_schema(request=None, responses={201: MeSerializer, 200: MeSerializer})
    def post(self, request: Request) -> Response:
        if request.user.is_authenticated:
            return Response(me_json(request))
        guest = guest_create()
        login(request._request, guest)
        request.user = guest
        return Response(me_json(request), status=201)


class RegisterView(APIView):
    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "register"

    @extend_schema(request=RegisterSerializer, responses={201: SignedInSerializer})
    def post(self, request: Request) -> Response:
        data = RegisterSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        fields = dict(data.validated_data)
        email = fields.pop("email", "")
        guest = guest_of(request.user)
        # From a guest's session the guest becomes the account, its games with it.
        with transaction.atomic():
            user = user_register(**fields, guest=guest)
            if email:
                email_set(user=user, email=email)
        response = Response(sign_in(request, user, guest=guest), status=201)
        # The browser that made the account is known to it (accounts/signin.py):
        # guesses at the new name from elsewhere do not lock its owner out here.
        remember_device(response, user.username)
        return response


class LoginView(APIView):
    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "login"

    @extend_schema(request=CredentialsSerializer, responses={200: SignedInSerializer})
    def post(self, request: Request) -> Response:
        data = CredentialsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        # The account's budget too (issue 25; accounts/signin.py), before the hash.
        count_attempt(request._request, data.validated_data["username"])
        user = authenticate(request._request, **data.validated_data)
        if user is None or user.is_guest:
            raise ApiError(400, "bad_credentials", "That username and password do not match.")
        if not known_device(request._request, data.validated_data["username"]):
            signin_noticed(user=user)  # a browser new to the account: tell its owner
        guest = guest_of(request.user)
        response = remember_language(Response(sign_in(request, user, guest=guest)), user)
        remember_device(response, data.validated_data["username"])
        return response


class LogoutView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(request=None, responses={200: MeSerializer})
    def post(self, request: Request) -> Response:
        user_id = request.user.pk if request.user.is_authenticated else None
        logout(request._request)
        request.user = AnonymousUser()
        if user_id is not None:  # its open game sockets stop acting for it (issue 25)
            sockets_close(user_id=user_id)
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


# Keeping an account (issue 28; accounts/recovery.py): email, password reset and
# change, sign out everywhere.


class TokenSerializer(StrictSerializer):
    """A link's token (an email's verification, a reset, a reminder's way off)."""

    token = StrictCharField(max_length=512)
