"""``/api/auth/``: me, register, login, logout (PRODUCT.md, HTTP API)."""

from __future__ import annotations

from typing import Any

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

from config.api import IPRateThrottle, StrictCharField, StrictSerializer
from config.errors import ApiError

from .services import user_register


class MeSerializer(serializers.Serializer):  # type: ignore[type-arg]
    authenticated = serializers.BooleanField()
    username = serializers.CharField(allow_null=True)


class CredentialsSerializer(StrictSerializer):
    username = StrictCharField(max_length=150, trim_whitespace=False)
    password = StrictCharField(max_length=128, trim_whitespace=False)


def me_json(request: Request) -> dict[str, Any]:
    user = request.user
    return {
        "authenticated": bool(user.is_authenticated),
        "username": user.get_username() if user.is_authenticated else None,
    }


@method_decorator(ensure_csrf_cookie, name="dispatch")
class MeView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(responses={200: MeSerializer}, summary="Who am I (sets the csrftoken cookie)")
    def get(self, request: Request) -> Response:
        return Response(me_json(request))


class RegisterView(APIView):
    permission_classes = (AllowAny,)
    throttle_classes = (IPRateThrottle,)
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
    throttle_classes = (IPRateThrottle,)
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
        return Response(me_json(request))


class LogoutView(APIView):
    permission_classes = (AllowAny,)

    @extend_schema(request=None, responses={200: MeSerializer})
    def post(self, request: Request) -> Response:
        logout(request._request)
        request.user = AnonymousUser()
        return Response(me_json(request))
