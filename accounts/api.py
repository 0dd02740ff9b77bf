"""``/api/auth/``: me, register, login, logout (PRODUCT.md, HTTP API)."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import authenticate, login, logout, update_session_auth_hash
from django.contrib.auth.models import AnonymousUser
from django.db import transaction
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import ensure_csrf_cookie
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.parsers import FormParser
from rest_framework.permissions import AllowAny
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import (
    JSONParser,
    RateThrottle,
    StrictBooleanField,
    StrictCharField,
    StrictChoiceField,
    StrictIntegerField,
    StrictSerializer,
    rate_limit,
)
from kit.http import ApiError

from .models import Reminder, User
from .privacy import account_delete, account_export
from .recovery import (
    account_secure,
    email_change,
    email_set,
    email_verification_resend,
    email_verify,
    password_change,
    password_reset_confirm,
    password_reset_request,
    reset_target_key,
    sessions_end_all,
    signin_noticed,
)
from .reminders import (
    push_available,
    push_subscribe,
    push_unsubscribe,
    reminder_of,
    reminder_off_by_token,
    reminder_set,
    reminder_state,
)
from .services import (
    account_required,
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


class EmailSerializer(StrictSerializer):
    email = StrictCharField(
        max_length=254, allow_blank=True, help_text='the new address; "" removes it'
    )
    password = StrictCharField(
        max_length=128,
        trim_whitespace=False,
        help_text="the current password: a session alone does not change the email",
    )


class TokenSerializer(StrictSerializer):
    token = StrictCharField(max_length=512)


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


# --- privacy (issue 28): delete the account, take the data ---------------------------------


class DeleteSerializer(StrictSerializer):
    password = StrictCharField(max_length=128, trim_whitespace=False)


class AccountView(APIView):
    """``DELETE /api/auth/account/`` with ``{"password": …}``: delete the signed-in
    account (accounts/privacy.py): it is anonymised, its results stay on the
    boards under a placeholder name, and this session ends."""

    throttle_classes = (RateThrottle,)
    throttle_scope = "login"  # a password tried: the sign-in's budget

    @extend_schema(
        request=DeleteSerializer,
        responses={
            200: MeSerializer,
            400: OpenApiResponse(description="bad_password, or a malformed body"),
            403: OpenApiResponse(description="account_required (a guest), or csrf_failed"),
        },
    )
    def delete(self, request: Request) -> Response:
        data = DeleteSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        account_delete(user=request.user, password=data.validated_data["password"])
        logout(request._request)
        request.user = AnonymousUser()
        return Response(me_json(request))


class ExportView(APIView):
    """``GET /api/auth/export/``: everything we hold about the signed-in player,
    as a JSON file to download. It names no player: only one's own."""

    @extend_schema(responses={200: dict}, summary="Download your data")
    def get(self, request: Request) -> Response:
        document = account_export(user=request.user)
        name = f"patience-daily-{document['account']['username']}.json"
        return Response(document, headers={"Content-Disposition": f'attachment; filename="{name}"'})


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
