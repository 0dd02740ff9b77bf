"""Small pieces every API view shares: strict input parsing and per-IP throttles.

Input is untrusted JSON: a field of the wrong JSON type is an error, never
coerced (``"2"`` is not 2, ``true`` is not 1), and unknown fields are refused.
"""

from __future__ import annotations

from typing import Any

from rest_framework import parsers, serializers
from rest_framework.exceptions import ParseError
from rest_framework.request import Request
from rest_framework.throttling import SimpleRateThrottle


class JSONParser(parsers.JSONParser):
    """DRF's JSON parser, but JSON nested too deep for Python is a 400, not a 500."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Any = None) -> Any:
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON nested too deeply.") from None


class StrictSerializer(serializers.Serializer):  # type: ignore[type-arg]
    """A serializer that refuses unknown fields and non-object bodies."""

    def to_internal_value(self, data: Any) -> Any:
        if not isinstance(data, dict):
            raise serializers.ValidationError({"body": ["Expected a JSON object."]})
        unknown = sorted(set(data) - set(self.fields))
        if unknown:
            raise serializers.ValidationError({key: ["Unknown field."] for key in unknown})
        return super().to_internal_value(data)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer and nothing else (not a bool, a float or a string)."""

    def to_internal_value(self, data: Any) -> int:
        if type(data) is not int:
            self.fail("invalid")
        return int(super().to_internal_value(data))


class StrictCharField(serializers.CharField):
    """A JSON string and nothing else."""

    def to_internal_value(self, data: Any) -> str:
        if not isinstance(data, str):
            self.fail("invalid")
        return str(super().to_internal_value(data))


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean and nothing else (not 0/1, not "true")."""

    def to_internal_value(self, data: Any) -> bool:
        if type(data) is not bool:
            self.fail("invalid")
        return data


class StrictObjectField(serializers.JSONField):
    """A JSON object (its content is checked by whoever reads it)."""

    default_error_messages = {"invalid": "Expected a JSON object."}

    def to_internal_value(self, data: Any) -> dict[str, Any]:
        if not isinstance(data, dict):
            self.fail("invalid")
        return data


class IPRateThrottle(SimpleRateThrottle):
    """Throttle by client address, signed in or not; the view names ``throttle_scope``."""

    def __init__(self) -> None:  # the scope, hence the rate, is only known per view
        pass

    def allow_request(self, request: Request, view: Any) -> bool:
        self.scope = getattr(view, "throttle_scope", "")
        if not self.scope:
            return True
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        return super().allow_request(request, view)

    def get_cache_key(self, request: Request, view: Any) -> str:
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}
