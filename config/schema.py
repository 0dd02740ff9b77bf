"""Teach drf-spectacular our authentication, so /api/schema/ documents it."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension


class CsrfSessionScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "config.errors.CsrfSessionAuthentication"
    name = "sessionCookie"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        # Unsafe requests also send the csrftoken cookie back in X-CSRFToken.
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}
