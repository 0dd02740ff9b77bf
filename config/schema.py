"""Teach drf-spectacular our authentication and the errors every view shares, so
/api/schema/ documents what the API really answers."""

from typing import Any

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from rest_framework.settings import api_settings


class CsrfSessionScheme(OpenApiAuthenticationExtension):  # type: ignore[no-untyped-call]
    target_class = "kit.http.CsrfSessionAuthentication"
    name = "sessionCookie"

    def get_security_definition(self, auto_schema: Any) -> dict[str, str]:
        # Unsafe requests also send the csrftoken cookie back in X-CSRFToken.
        return {"type": "apiKey", "in": "cookie", "name": "sessionid"}


ERROR_REF = {"$ref": "#/components/schemas/Error"}
ERROR_SCHEMA = {  # kit.http.error_body; views that name their errors define it too
    "type": "object",
    "properties": {
        "error": {
            "type": "object",
            "properties": {"code": {"type": "string"}, "message": {"type": "string"}},
            "required": ["code", "message"],
        }
    },
    "required": ["error"],
}
UNSAFE = {"post", "put", "patch", "delete"}


def shared_errors(operation: dict[str, Any], method: str, view: Any) -> dict[int, str]:
    """The 4xx answers the shared machinery gives this operation, whatever its view
    does: the parser and serializers (400), the body limit (413), CSRF on every
    unsafe request (403), sign-in (401) and the rate limits (429)."""
    errors: dict[int, str] = {}
    if "requestBody" in operation:
        errors[400] = "Malformed input: not JSON, wrong types, unknown or missing fields."
        errors[413] = "The request body is over 64 KiB."
        errors[415] = "The body is not application/json."
    if method in UNSAFE:
        errors[403] = "CSRF check failed (send the csrftoken cookie back in X-CSRFToken)."
    if {} not in operation.get("security", [{}]):
        errors[401] = "Sign in first."
    scope = getattr(view, "throttle_scope", None)
    if method in UNSAFE and scope in api_settings.DEFAULT_THROTTLE_RATES:
        errors[429] = "Too many requests; Retry-After says when to try again."
    return errors


def document_shared_errors(result: dict[str, Any], generator: Any, **kwargs: Any) -> dict[str, Any]:
    """Postprocessing hook: add the shared errors (``{"error": {"code", "message"}}``,
    PRODUCT.md) an operation does not document yet; what a view names stays."""
    result.setdefault("components", {}).setdefault("schemas", {}).setdefault("Error", ERROR_SCHEMA)
    for path, _regex, method, callback in generator.endpoints:
        operation = result["paths"].get(path, {}).get(method.lower())
        if operation is None:
            continue
        responses = operation.setdefault("responses", {})
        for status, description in shared_errors(operation, method.lower(), callback.cls).items():
            content = {"application/json": {"schema": ERROR_REF}}
            responses.setdefault(str(status), {"content": content, "description": description})
        operation["responses"] = dict(sorted(responses.items()))
    return result
