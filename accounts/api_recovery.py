"""``/api/auth/``: keeping an account (issue 28) — the email and its
verification, a password reset and change, "this wasn't me", signing out
everywhere (docs/api.md, "Keeping an account")."""

from __future__ import annotations

from typing import Any

from django.contrib.auth import logout, update_session_auth_hash
from django.contrib.auth.models import AnonymousUser
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import (
    RateThrottle,
    StrictCharField,
    StrictSerializer,
    rate_limit,
)
from kit.http import ApiError

from .api import MeSerializer, TokenSerializer, me_json
from .recovery import (
    account_secure,
    email_change,
    email_verification_resend,
    email_verify,
    password_change,
    password_reset_confirm,
    password_reset_request,
    reset_target_key,
    sessions_end_all,
)
from .services import (
    account_required,
)
from .sockets import sockets_close


class EmailSerializer(StrictSerializer):
    email = StrictCharField(
        max_length=254, allow_blank=True, help_text='the new address; "" removes it'
    )
    password = StrictCharField(
        max_length=128,
        trim_whitespace=False,
        help_text="the current password: a session alone does not change the email",
    )


class VerifiedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    email = serializers.CharField()
    email_verified = serializers.BooleanField()


class ResetRequestSerializer(StrictSerializer):
    email = StrictCharField(max_length=254, required=False)
    username = StrictCharField(max_length=150, required=False)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if len(attrs) != 1:
            raise ApiError(400, "bad_target", 'Name the account by "email" or by "username".')
        return attrs


class ResetAcceptedSerializer(serializers.Serializer):  # type: ignore[type-arg]
    accepted = serializers.BooleanField()
    message = serializers.CharField()


class ResetConfirmSerializer(StrictSerializer):
    uid = StrictCharField(max_length=64)
    token = StrictCharField(max_length=128)
    password = StrictCharField(max_length=128, trim_whitespace=False)


class PasswordResetSerializer(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField(help_text="the account whose password was set")


class PasswordChangeSerializer(StrictSerializer):
    old = StrictCharField(max_length=128, trim_whitespace=False)
    new = StrictCharField(max_length=128, trim_whitespace=False)


NO_ACCOUNT = "Sign up first: a guest has no account to keep."
"""Why a guest's email, password or sign-outs are refused (403 ``account_required``)."""


class EmailView(APIView):
    """``PUT /api/auth/email/``: set, change or remove (``""``) your email, with
    your current password; the address confirmed before gets a notice with a
    "this wasn't me" link (issue 37)."""

    throttle_classes = (RateThrottle,)
    throttle_scope = "account-changes"

    @extend_schema(
        request=EmailSerializer,
        responses={
            200: MeSerializer,
            400: OpenApiResponse(description="bad_password, bad_email, or a malformed body"),
            403: OpenApiResponse(description="account_required (a guest), or csrf_failed"),
        },
    )
    def put(self, request: Request) -> Response:
        data = EmailSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        request.user = email_change(
            user=account_required(request.user, NO_ACCOUNT), **data.validated_data
        )
        return Response(me_json(request))


class SecuredSerializer(serializers.Serializer):  # type: ignore[type-arg]
    username = serializers.CharField()
    email = serializers.CharField(help_text="the account's email again")
    email_verified = serializers.BooleanField()
    uid = serializers.CharField(help_text="with token: POST /api/auth/password/reset/confirm/")
    token = serializers.CharField()


class SecureView(APIView):
    """``POST /api/auth/secure/``: the "this wasn't me" link of a notice (an
    email or password changed, a sign-in from a new browser), followed by
    anyone who has it: the address it was mailed to becomes the account's
    email again, every session and socket ends, the password no longer works;
    the answer's ``uid`` and ``token`` choose a new one."""

    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "login"  # a token guessed is a sign-in guessed

    @extend_schema(
        request=TokenSerializer,
        responses={
            200: SecuredSerializer,
            400: OpenApiResponse(description="bad_token: forged, expired or used"),
        },
    )
    def post(self, request: Request) -> Response:
        data = TokenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, reset = account_secure(**data.validated_data)
        sockets_close(user_id=user.pk)
        return Response(
            {
                "username": user.username,
                "email": user.email,
                "email_verified": user.email_verified,
                **reset,
            }
        )


class EmailVerifyView(APIView):
    """``POST /api/auth/email/verify/``: the link of the verification mail,
    followed (by anyone who has it: signed in or not)."""

    permission_classes = (AllowAny,)

    @extend_schema(request=TokenSerializer, responses={200: VerifiedSerializer})
    def post(self, request: Request) -> Response:
        data = TokenSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = email_verify(**data.validated_data)
        return Response({"username": user.username, "email": user.email, "email_verified": True})


class ResentSerializer(serializers.Serializer):  # type: ignore[type-arg]
    accepted = serializers.BooleanField()
    email = serializers.CharField(help_text="the address the link is mailed to")


class EmailVerifyResendView(APIView):
    """``POST /api/auth/email/verify/resend/``: mail the verification link again
    to your unconfirmed address. Counted per player (``EMAIL_RESEND_RATE``), as
    each mails someone."""

    throttle_classes = (RateThrottle,)
    throttle_scope = "email-resend"

    @extend_schema(
        request=None,
        responses={
            202: ResentSerializer,
            400: OpenApiResponse(description="no_email: the account has no address"),
            403: OpenApiResponse(description="account_required (a guest), or csrf_failed"),
            409: OpenApiResponse(description="email_verified: confirmed already"),
            429: OpenApiResponse(description="rate_limited"),
        },
    )
    def post(self, request: Request) -> Response:
        user = email_verification_resend(user=account_required(request.user, NO_ACCOUNT))
        return Response({"accepted": True, "email": user.email}, status=202)


RESET_ACCEPTED = "If that account has a verified email, a link to reset its password is on its way."


class PasswordResetView(APIView):
    """``POST /api/auth/password/reset/``: mail a reset link. The same 202 whether
    or not such an account exists, has a verified email, or got a mail; counted
    per address and per account named, before anything is looked up."""

    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "password-reset"  # per address

    @extend_schema(request=ResetRequestSerializer, responses={202: ResetAcceptedSerializer})
    def post(self, request: Request) -> Response:
        data = ResetRequestSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        (target,) = data.validated_data.values()
        rate_limit("password-reset-target", reset_target_key(target))
        password_reset_request(target=target)
        return Response({"accepted": True, "message": RESET_ACCEPTED}, status=202)


class PasswordResetConfirmView(APIView):
    """``POST /api/auth/password/reset/confirm/``: the reset link's ``uid`` and
    ``token`` with the new password. Every session of the account ends, and its
    sockets close; the player then signs in with the new password."""

    permission_classes = (AllowAny,)
    throttle_classes = (RateThrottle,)
    throttle_scope = "login"  # a token guessed is a sign-in guessed

    @extend_schema(request=ResetConfirmSerializer, responses={200: PasswordResetSerializer})
    def post(self, request: Request) -> Response:
        data = ResetConfirmSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = password_reset_confirm(**data.validated_data)
        sockets_close(user_id=user.pk)
        return Response({"username": user.username})


class PasswordChangeView(APIView):
    """``POST /api/auth/password/``: change your password; this session goes on,
    every other ends."""

    throttle_classes = (RateThrottle,)
    throttle_scope = "account-changes"

    @extend_schema(request=PasswordChangeSerializer, responses={200: MeSerializer})
    def post(self, request: Request) -> Response:
        data = PasswordChangeSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user = password_change(
            user=account_required(request.user, NO_ACCOUNT), **data.validated_data
        )
        # This browser's sockets were opened with its session key before the
        # change; update_session_auth_hash gives the session a new key.
        opened_with = request._request.session.session_key
        update_session_auth_hash(request._request, user)
        sockets_close(user_id=user.pk, keep=opened_with)
        return Response(me_json(request))


class LogoutEverywhereView(APIView):
    """``POST /api/auth/logout/everywhere/``: end every session of your account,
    this one too, and close their sockets."""

    @extend_schema(request=None, responses={200: MeSerializer})
    def post(self, request: Request) -> Response:
        user = account_required(request.user, NO_ACCOUNT)
        sessions_end_all(user=user)
        logout(request._request)
        request.user = AnonymousUser()
        sockets_close(user_id=user.pk)
        return Response(me_json(request))
