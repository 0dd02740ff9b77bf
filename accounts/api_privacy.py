"""``/api/auth/account/`` and ``/api/auth/export/``: delete the account, take
the data (issue 28; docs/api.md, "Your data")."""

from __future__ import annotations

from django.contrib.auth import logout
from django.contrib.auth.models import AnonymousUser
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from kit.api import (
    RateThrottle,
    StrictCharField,
    StrictSerializer,
)

from .api import MeSerializer, me_json
from .privacy import account_delete, account_export

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
